/**
 * Completed segmentations as the exports, the shares and the public page read them: the row, its
 * outlines (parsed once and kept for the exports that follow one another) and its preview copy.
 */
import type { SegmentationResult } from '../../engines/segmentation/types.js';
import { ownRow } from '../errors.js';
import type { Organization } from '../organizations.js';
import type { SegmentationRecord, SegmentationRow } from '../predictions/prediction-record.js';
import type { StateStore } from '../state.js';
import type { SegmentationFiles } from './segmentation-files.js';

/** Outlines parsed from their files, kept for the exports that follow one another on a segmentation. */
const RESULTS_KEPT = 16;

export class SegmentationReader {
  private readonly results = new Map<string, SegmentationResult>();

  constructor(
    private readonly state: StateStore,
    private readonly files: SegmentationFiles,
  ) {}

  /** The row of a completed segmentation of the organization; anything else is a 404. */
  async row(org: Organization, id: string): Promise<SegmentationRow> {
    return ownRow(await this.state.segmentations.get(id), org, 'Segmentation');
  }

  /** A segmentation with its outlines, whoever owns it (the public share page), or undefined. */
  async load(id: string): Promise<SegmentationRecord | undefined> {
    const row = await this.state.segmentations.get(id);
    if (!row) return undefined;
    let result = this.results.get(id);
    if (!result) {
      // Written once, before the row committed, and never changed: safe to keep parsed.
      try {
        result = await this.files.readResult(id);
      } catch (error) {
        // Deleted while its outlines were read: as if the delete had come first.
        if (!(await this.state.segmentations.get(id))) return undefined;
        throw error;
      }
      if (this.results.size >= RESULTS_KEPT) this.results.delete(this.results.keys().next().value!);
      this.results.set(id, result);
    }
    // Deleted while its outlines were read: as if the delete had come first.
    if (!(await this.state.segmentations.get(id))) return undefined;
    return { ...row, result, previewPath: row.hasPreview ? this.files.previewPathOf(id) : null };
  }

  /** The preview copy's bytes; undefined when the image had no preview. */
  async previewBytes(segmentation: SegmentationRecord): Promise<Buffer | undefined> {
    return segmentation.hasPreview ? this.files.readPreview(segmentation.id) : undefined;
  }

  /** After the state was replaced (a snapshot loaded): the same id may now name other outlines. */
  forgetAll(): void {
    this.results.clear();
  }
}
