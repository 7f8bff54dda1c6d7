import { rm } from 'node:fs/promises';
import type { ConvertedImage } from '../../engines/raster/convert-image.js';
import { spillScratchPath } from '../../engines/raster/spill-scratch.js';
import type { TiffLimits } from '../../engines/raster/tiff-inspect.js';
import type { ConvertJob } from './decoder-tasks.js';

/**
 * An image conversion run in a decoder child. When it fails, the spill file a killed child left
 * (up to the decoded-bytes budget, outside any organization's storage) is removed with it.
 */
export function convertInChild(
  decoders: { run<T>(task: string, payload: unknown): Promise<T> },
  limits: TiffLimits,
): (tiffPath: string, files: ConvertJob['files']) => Promise<ConvertedImage> {
  return async (tiffPath, files) => {
    try {
      return await decoders.run<ConvertedImage>('convert', { tiffPath, files, limits } satisfies ConvertJob);
    } catch (err) {
      await rm(spillScratchPath(files.plane), { force: true });
      throw err;
    }
  };
}
