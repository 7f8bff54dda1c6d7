/**
 * A completed segmentation's files, behind a port the domain owns (implemented by
 * stores/files/segmentation-file-store.ts): its outlines and its copy of the image's preview.
 */
import type { SegmentationResult } from '../../engines/segmentation/types.js';

export interface SegmentationFiles {
  /**
   * Writes the outlines and a copy of the preview (when there is one) under a staging name,
   * makes them durable and renames them into place: all there, or nothing, before the row that
   * announces the segmentation commits. Answers the path of the preview copy.
   */
  write(id: string, result: SegmentationResult, imagePreview: string | null): Promise<string | null>;
  readResult(id: string): Promise<SegmentationResult>;
  /** Where the preview copy of a segmentation that has one is. */
  previewPathOf(id: string): string;
  readPreview(id: string): Promise<Buffer>;
  remove(id: string): Promise<void>;
}
