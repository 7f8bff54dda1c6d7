/** The domain's DerivedImageFiles on the data folder: `derived/<image id>/` (stores/data-layout.ts). */
import { access, mkdir } from 'node:fs/promises';
import type { DerivedFileSet, DerivedImageFiles } from '../../domain/images/derived-files.js';
import type { DataLayout } from '../data-layout.js';
import { flushFiles } from './flush-files.js';
import { removeFolder } from './remove-folder.js';

export class DerivedImageFileStore implements DerivedImageFiles {
  constructor(private readonly layout: DataLayout) {}

  async prepare(imageId: string): Promise<DerivedFileSet> {
    const { folder, ...files } = this.layout.derivedFilesOf(imageId);
    await mkdir(folder, { recursive: true });
    return files;
  }

  async flush(imageId: string): Promise<void> {
    const { folder, preview, thumbnail, plane } = this.layout.derivedFilesOf(imageId);
    await flushFiles([preview, thumbnail, plane, folder, this.layout.derived]);
  }

  /** Safe while a conversion still writes into the folder (remove-folder.ts). */
  async remove(imageId: string): Promise<void> {
    await removeFolder(this.layout.derivedFilesOf(imageId).folder);
  }

  planeOf(imageId: string): Promise<string | undefined> {
    const { plane } = this.layout.derivedFilesOf(imageId);
    return access(plane).then(
      () => plane,
      () => undefined,
    );
  }
}
