/**
 * The files a conversion leaves beside an image's stored original, behind a port the domain owns
 * (implemented by stores/files/derived-image-files.ts): the domain decides when they are written,
 * made durable and removed; where they live is the data folder's layout.
 */
import type { ConvertedFiles } from '../../engines/raster/convert-image.js';

/** Where one conversion writes its output; its decoded grey plane is kept so a prediction does not decode the TIFF again. */
export type DerivedFileSet = ConvertedFiles;

export interface DerivedImageFiles {
  /** The files a conversion of this image writes, their folder made. */
  prepare(imageId: string): Promise<DerivedFileSet>;
  /** Makes what the conversion wrote durable (fsync), before the row that points at it commits. */
  flush(imageId: string): Promise<void>;
  remove(imageId: string): Promise<void>;
  /** The decoded plane of a converted image; undefined when there is none (converted by an older version). */
  planeOf(imageId: string): Promise<string | undefined>;
}

/** What a segmentation reads the image from: the plane the conversion kept, or the stored TIFF. */
export type SegmentationSource = { planePath: string } | { tiffPath: string };
