/**
 * The conversion step of an upload: bytes on disk in, shape and previews out.
 *
 *   convertImage(tiffPath, outDir, limits?) -> Promise<ConvertedImage>    throws TiffError
 *
 * Inspects the TIFF (tiff-inspect.ts: structure, limits, strips inside the file), decodes the
 * first page to one grey plane (decode-plane.ts) and writes `preview.png` (full size, 8-bit grey,
 * contrast-stretched) and `thumbnail.png` (fits 256 x 256) into `outDir`. With `keepPlane: true` it
 * also writes the plane as `plane.raw` (samples in platform byte order, little-endian on x64/arm64, row-major, no header; width, height
 * and bitsPerSample are in the result) for a later segmentation job; without it the job can call
 * decodePlane again. Any failure is a TiffError whose message is meant for the uploader.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodePlane } from './decode-plane.js';
import type { Plane } from './plane.js';
import { writePreviews } from './previews.js';
import { TiffError } from './tiff-error.js';
import { inspectTiff, type TiffInfo, type TiffLimits } from './tiff-inspect.js';

export interface ConvertOptions extends TiffLimits {
  keepPlane?: boolean;
  thumbMax?: number;
}

export interface ConvertedImage {
  shape: number[];
  width: number;
  height: number;
  bitsPerSample: Plane['bitsPerSample'];
  previewPath: string;
  thumbnailPath: string;
  planePath?: string;
  info: TiffInfo;
}

export async function convertImage(
  tiffPath: string,
  outDir: string,
  limits: ConvertOptions = {},
): Promise<ConvertedImage> {
  const info = await inspectTiff(tiffPath, limits);
  const plane = await decodePlane(tiffPath, info);
  await mkdir(outDir, { recursive: true });
  const previewPath = join(outDir, 'preview.png');
  const thumbnailPath = join(outDir, 'thumbnail.png');
  try {
    await writePreviews(plane, previewPath, thumbnailPath, limits.thumbMax ?? 256);
  } catch (err) {
    throw new TiffError(
      'decode',
      `cannot make a preview: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
  let planePath: string | undefined;
  if (limits.keepPlane) {
    planePath = join(outDir, 'plane.raw');
    const d = plane.data;
    // Written in the platform byte order, little-endian on x64 and arm64.
    await writeFile(planePath, new Uint8Array(d.buffer, d.byteOffset, d.byteLength));
  }
  return {
    shape: info.shape,
    width: info.width,
    height: info.height,
    bitsPerSample: plane.bitsPerSample,
    previewPath,
    thumbnailPath,
    planePath,
    info,
  };
}
