/**
 * The conversion step of an upload: bytes on disk in, shape and derived files out.
 *
 *   convertImage(tiffPath, files, limits?) -> Promise<ConvertedImage>    throws TiffError
 *
 * Inspects the TIFF (tiff-inspect.ts: structure, limits, strips inside the file), decodes the
 * first page to one grey plane (decode-plane.ts) and writes `files.preview` (full size, 8-bit grey,
 * contrast-stretched), `files.thumbnail` (fits 256 x 256) and `files.plane` (the decoded plane,
 * plane-file.ts), which a later segmentation reads instead of decoding the TIFF again. Any
 * failure is a TiffError whose message is meant for the uploader.
 */
import { decodePlane } from './decode-plane.js';
import { writePlaneFile } from './plane-file.js';
import { writePreviews } from './previews.js';
import { TiffError } from './tiff-error.js';
import { inspectTiff, type TiffLimits } from './tiff-inspect.js';
import { spillScratchPath } from './spill-scratch.js';

/** Where a conversion writes (folders made by the caller). */
export interface ConvertedFiles {
  preview: string;
  thumbnail: string;
  plane: string;
}

export type ConvertedImage = Awaited<ReturnType<typeof convertImage>>;

export async function convertImage(tiffPath: string, files: ConvertedFiles, limits: TiffLimits = {}) {
  const info = await inspectTiff(tiffPath, limits);
  // A page only libvips reads is spilled beside the plane while it is decoded (decode-plane.ts).
  const plane = await decodePlane(tiffPath, info, spillScratchPath(files.plane));
  try {
    await writePreviews(plane, files.preview, files.thumbnail);
  } catch (err) {
    throw new TiffError(
      'decode',
      `cannot make a preview: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
  await writePlaneFile(files.plane, plane);
  return {
    shape: info.shape,
    width: info.width,
    height: info.height,
    previewPath: files.preview,
    thumbnailPath: files.thumbnail,
  };
}
