/**
 * The jobs decoder children run: everything that parses the pixels of a client's file.
 *
 *   convert   inspect + decoded-bytes budget + decode + previews + the plane kept (engines/raster/convert-image.ts)
 *   segment   the kept plane (or inspect + budget + decode, without one) + the model (engines/models/segment-task.ts)
 *
 * Loaded only inside a child (child-main.ts), never by the server's own process.
 */
import { convertImage, type ConvertedFiles } from '../../engines/raster/convert-image.js';
import type { TiffLimits } from '../../engines/raster/tiff-inspect.js';
import { segmentStoredImage } from '../../engines/models/segment-task.js';
import type { TaskTable } from './protocol.js';

export interface ConvertJob {
  tiffPath: string;
  files: ConvertedFiles;
  limits: TiffLimits;
}

export const tasks = {
  convert(job: ConvertJob) {
    return convertImage(job.tiffPath, job.files, job.limits);
  },
  segment: segmentStoredImage,
} satisfies TaskTable;
