/**
 * Preview images of a plane: a full-size 8-bit grey PNG (contrast-stretched, see
 * contrast-stretch.ts; the share page shows it and the overlay export draws on it) and a thumbnail
 * that fits in `THUMBNAIL_MAX` x `THUMBNAIL_MAX`, never enlarged.
 */
import sharp from './libvips.js';
import { stretchToUint8 } from './contrast-stretch.js';
import type { Plane } from './plane.js';

/** The thumbnail's longest side, in pixels. */
const THUMBNAIL_MAX = 256;

export async function writePreviews(
  plane: Plane,
  outPreviewPng: string,
  outThumbnailPng: string,
): Promise<void> {
  const grey = stretchToUint8(plane);
  const raw = {
    raw: { width: plane.width, height: plane.height, channels: 1 as const },
    limitInputPixels: false as const,
  };
  const buf = Buffer.from(grey.buffer, grey.byteOffset, grey.byteLength);
  await sharp(buf, raw).toColourspace('b-w').png({ compressionLevel: 6 }).toFile(outPreviewPng);
  await sharp(buf, raw)
    .resize({
      width: THUMBNAIL_MAX,
      height: THUMBNAIL_MAX,
      fit: 'inside',
      withoutEnlargement: true,
      kernel: 'lanczos3',
    })
    .toColourspace('b-w')
    .png({ compressionLevel: 6 })
    .toFile(outThumbnailPng);
}

/**
 * Decodes a preview PNG (as written by `writePreviews`) back to 8-bit grey pixels, row-major: what
 * the overlay draws on.
 * @public (the export use case loads this module when first needed, by a dynamic import)
 */
export async function greyPixelsOfPng(png: Buffer) {
  const { data, info } = await sharp(png)
    .removeAlpha()
    .toColourspace('b-w')
    .raw()
    .toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    channels: 1 as const,
    data: new Uint8Array(data.buffer, data.byteOffset, data.length),
  };
}
