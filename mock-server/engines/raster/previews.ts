/**
 * Preview images of a plane: a full-size 8-bit grey PNG (contrast-stretched, see
 * contrast-stretch.ts; the share page shows it and the overlay export draws on it) and a thumbnail
 * that fits in `thumbMax` x `thumbMax`, never enlarged.
 */
import sharp from './libvips.js';
import { stretchToUint8 } from './contrast-stretch.js';
import type { Plane } from './plane.js';

export interface PreviewFile {
  path: string;
  width: number;
  height: number;
  bytes: number;
}

export interface PreviewResult {
  preview: PreviewFile;
  thumbnail: PreviewFile;
}

export async function writePreviews(
  plane: Plane,
  outPreviewPng: string,
  outThumbnailPng: string,
  thumbMax = 256,
): Promise<PreviewResult> {
  const grey = stretchToUint8(plane);
  const raw = {
    raw: { width: plane.width, height: plane.height, channels: 1 as const },
    limitInputPixels: false as const,
  };
  const buf = Buffer.from(grey.buffer, grey.byteOffset, grey.byteLength);
  const p = await sharp(buf, raw).toColourspace('b-w').png({ compressionLevel: 6 }).toFile(outPreviewPng);
  const t = await sharp(buf, raw)
    .resize({
      width: thumbMax,
      height: thumbMax,
      fit: 'inside',
      withoutEnlargement: true,
      kernel: 'lanczos3',
    })
    .toColourspace('b-w')
    .png({ compressionLevel: 6 })
    .toFile(outThumbnailPng);
  return {
    preview: { path: outPreviewPng, width: p.width, height: p.height, bytes: p.size },
    thumbnail: { path: outThumbnailPng, width: t.width, height: t.height, bytes: t.size },
  };
}
