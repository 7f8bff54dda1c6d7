"""OpenCV peer of the segmentation bench: GaussianBlur, Otsu threshold, hole filling,
connectedComponentsWithStats (4-connectivity), findContours on the same image, same sigma.
Run with Debian's /usr/bin/python3.

OpenCV's THRESH_OTSU takes 8-bit input only, so the smoothed 16-bit image is scaled to 8 bits
for the threshold (a 256-bin Otsu), as OpenCV users do.

usage: opencv_peer.py IMAGE.npy SIGMA REPEATS  -> one JSON line on stdout
"""
import json
import sys
import time

try:
    import numpy as np
    import cv2
except ImportError as error:  # reported by run.ts as a skip
    print(json.dumps({"skipped": f"OpenCV not available: {error}"}))
    sys.exit(0)


def pipeline(image, sigma):
    radius = int(4.0 * sigma + 0.5)
    smoothed = cv2.GaussianBlur(image, (2 * radius + 1, 2 * radius + 1), sigma, borderType=cv2.BORDER_REFLECT)
    lo, hi = int(smoothed.min()), int(smoothed.max())
    scaled = cv2.convertScaleAbs(smoothed, alpha=255.0 / max(hi - lo, 1), beta=-lo * 255.0 / max(hi - lo, 1))
    _, mask = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # Hole filling: flood the background from the border, holes are what stays unreached.
    flood = mask.copy()
    h, w = mask.shape
    ff = np.zeros((h + 2, w + 2), np.uint8)
    cv2.floodFill(flood, ff, (0, 0), 255)  # assumes (0, 0) is background, as in the bench image
    mask = mask | cv2.bitwise_not(flood)
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=4)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    perimeters = [cv2.arcLength(c, True) for c in contours]
    return count - 1, len(contours), len(perimeters)


def main():
    path, sigma, repeats = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    image = np.load(path)
    cv2.setNumThreads(1)
    times = []
    cpu = []
    count = 0
    for _ in range(repeats):
        start = time.perf_counter()
        cpu_start = time.process_time()
        count, _, _ = pipeline(image, sigma)
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - cpu_start) * 1000)
    import resource

    print(json.dumps({
        "peer": "opencv",
        "version": cv2.__version__,
        "threads": 1,
        "count": count,
        "times_ms": times,
        "median_ms": float(np.median(times)),
        "cpu_median_ms": float(np.median(cpu)),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }))


main()
