/**
 * The domain's SegmentationFiles on the data folder: `segmentations/<id>/` (result.json, preview.png),
 * staged as `segmentations/.<id>.tmp/` (paths from stores/data-layout.ts).
 */
import { copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import type { SegmentationFiles } from '../../domain/segmentations/segmentation-files.js';
import type { SegmentationResult } from '../../engines/segmentation/types.js';
import type { DataLayout } from '../data-layout.js';
import { flushFiles } from './flush-files.js';
import { removeFolder } from './remove-folder.js';

export class SegmentationFileStore implements SegmentationFiles {
  constructor(private readonly layout: DataLayout) {}

  async write(id: string, result: SegmentationResult, imagePreview: string | null): Promise<string | null> {
    const staging = this.layout.segmentationStaging(id);
    const final = this.layout.segmentationOf(id);
    await mkdir(staging.folder, { recursive: true });
    try {
      await writeFile(staging.result, JSON.stringify(result));
      const written = [staging.result];
      if (imagePreview) {
        await copyFile(imagePreview, staging.preview);
        written.push(staging.preview);
      }
      await flushFiles([...written, staging.folder]);
      await rename(staging.folder, final.folder);
      await flushFiles([this.layout.segmentations]);
    } catch (error) {
      await rm(staging.folder, { recursive: true, force: true });
      throw error;
    }
    return imagePreview ? final.preview : null;
  }

  async readResult(id: string): Promise<SegmentationResult> {
    return JSON.parse(await readFile(this.layout.segmentationOf(id).result, 'utf8')) as SegmentationResult;
  }

  previewPathOf(id: string): string {
    return this.layout.segmentationOf(id).preview;
  }

  readPreview(id: string): Promise<Buffer> {
    return readFile(this.layout.segmentationOf(id).preview);
  }

  async remove(id: string): Promise<void> {
    await removeFolder(this.layout.segmentationOf(id).folder);
  }
}
