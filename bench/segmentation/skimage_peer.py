"""scikit-image peer of the segmentation bench: gaussian, threshold_otsu, label, regionprops,
find_contours on the same image, with the same sigma. Run with Debian's /usr/bin/python3.

usage: skimage_peer.py IMAGE.npy SIGMA REPEATS  -> one JSON line on stdout
"""
import json
import sys
import time

try:
    import numpy as np
    from scipy import ndimage as ndi
    from skimage import filters, measure
except ImportError as error:  # reported by run.ts as a skip
    print(json.dumps({"skipped": f"scikit-image not available: {error}"}))
    sys.exit(0)


def pipeline(image, sigma):
    smoothed = filters.gaussian(image, sigma=sigma, mode="reflect", preserve_range=True, truncate=4.0)
    threshold = filters.threshold_otsu(smoothed)
    mask = ndi.binary_fill_holes(smoothed > threshold)
    labels = measure.label(mask, connectivity=1)
    props = measure.regionprops(labels)
    rows = [(p.area, p.perimeter, p.centroid, p.bbox) for p in props]
    contours = 0
    for p in props:
        # Outline of each object on its own padded crop, as the TS pipeline traces each object.
        crop = np.pad(p.image, 1).astype(np.uint8)
        contours += len(measure.find_contours(crop, 0.5))
    return len(rows), contours


def main():
    path, sigma, repeats = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    image = np.load(path)
    times = []
    cpu = []
    count = 0
    for _ in range(repeats):
        start = time.perf_counter()
        cpu_start = time.process_time()
        count, _ = pipeline(image, sigma)
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - cpu_start) * 1000)
    import resource

    print(json.dumps({
        "peer": "scikit-image",
        "version": __import__("skimage").__version__,
        "count": count,
        "times_ms": times,
        "median_ms": float(np.median(times)),
        "cpu_median_ms": float(np.median(cpu)),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }))


main()
