/**
 * The files a snapshot carries, where the mock keeps them: originals in the object store, a
 * conversion's files in derived/<image id>/, a segmentation's in segmentations/<id>/ (paths from
 * data-layout.ts). Read out with their SHA-256 (one pass before the archive is written, so the
 * manifest can lead it); put back by rename from the staging folder, each folder whole before it
 * takes its place.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ImageRecord } from '../../domain/images/image-record.js';
import type { ObjectStore } from '../../domain/object-store.js';
import { derivedEntry, objectEntry, segmentationEntry } from '../../domain/snapshots/snapshot-format.js';
import type {
  SnapshotFile,
  SnapshotFileStore,
  StagedSnapshot,
} from '../../domain/snapshots/snapshot-ports.js';
import type { SnapshotRows } from '../../domain/snapshots/snapshot-rows.js';
import type { DataLayout } from '../data-layout.js';
import { flushFiles } from '../files/flush-files.js';
import { removeFolder } from '../files/remove-folder.js';
import { isMissing } from '../object-store/store-errors.js';

async function sha256Of(stream: NodeJS.ReadableStream): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function localFile(name: string, file: string): Promise<SnapshotFile | undefined> {
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  return {
    name,
    size: info.size,
    sha256: await sha256Of(createReadStream(file)),
    open: async () => createReadStream(file),
  };
}

export class DataFolderSnapshotFiles implements SnapshotFileStore {
  constructor(
    private readonly layout: DataLayout,
    private readonly store: ObjectStore,
  ) {}

  async filesOf(rows: SnapshotRows): Promise<SnapshotFile[]> {
    const files: Array<SnapshotFile | undefined> = [];
    for (const image of rows.images) {
      const head = await this.store.headObject(image.storageKey);
      if (head)
        files.push({
          name: objectEntry(image.storageKey),
          size: head.size,
          sha256: await sha256Of(await this.store.readObject(image.storageKey)),
          open: () => this.store.readObject(image.storageKey),
        });
      if (image.derived === null) continue;
      for (const [name, file] of this.derivedFiles(image.id)) files.push(await localFile(name, file));
    }
    for (const segmentation of rows.segmentations) {
      const [result, preview] = this.segmentationFiles(segmentation.id);
      files.push(await localFile(...result));
      if (segmentation.hasPreview) files.push(await localFile(...preview));
    }
    return files
      .filter((file): file is SnapshotFile => file !== undefined)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async install(rows: SnapshotRows, staged: StagedSnapshot): Promise<ImageRecord[]> {
    const present = new Set(staged.names);
    const images: ImageRecord[] = [];
    for (const image of rows.images) {
      const object = objectEntry(image.storageKey);
      if (present.has(object))
        await this.store.putObject(image.storageKey, staged.pathOf(object), { move: true });
      if (image.derived === null) {
        images.push(image);
        continue;
      }
      const target = this.layout.derivedFilesOf(image.id);
      await this.placeFolder(target.folder, this.derivedFiles(image.id), staged, present);
      images.push({
        ...image,
        derived: { ...image.derived, previewPath: target.preview, thumbnailPath: target.thumbnail },
      });
    }
    for (const { id } of rows.segmentations)
      await this.placeFolder(
        this.layout.segmentationOf(id).folder,
        this.segmentationFiles(id),
        staged,
        present,
      );
    return images;
  }

  async remove(files: Parameters<SnapshotFileStore['remove']>[0]): Promise<void> {
    for (const key of files.storageKeys) await this.store.deleteObject(key);
    for (const id of files.imageIds) await removeFolder(this.layout.derivedFilesOf(id).folder);
    for (const id of files.segmentationIds) await removeFolder(this.layout.segmentationOf(id).folder);
  }

  /** A converted image's files: archive name, then where the data folder keeps it. */
  private derivedFiles(imageId: string): Array<[string, string]> {
    const { preview, thumbnail, plane } = this.layout.derivedFilesOf(imageId);
    return [
      [derivedEntry(imageId, 'preview.png'), preview],
      [derivedEntry(imageId, 'thumbnail.png'), thumbnail],
      [derivedEntry(imageId, 'plane.bin'), plane],
    ];
  }

  /** A segmentation's files (result, then preview): archive name, then where the data folder keeps it. */
  private segmentationFiles(segmentationId: string): Array<[string, string]> {
    const { result, preview } = this.layout.segmentationOf(segmentationId);
    return [
      [segmentationEntry(segmentationId, 'result.json'), result],
      [segmentationEntry(segmentationId, 'preview.png'), preview],
    ];
  }

  /** Fills a staging folder beside `folder`, makes it durable, and renames it into place. */
  private async placeFolder(
    folder: string,
    files: Array<[string, string]>,
    staged: StagedSnapshot,
    present: ReadonlySet<string>,
  ): Promise<void> {
    const building = path.join(path.dirname(folder), `.${path.basename(folder)}.snapshot.tmp`);
    await rm(building, { recursive: true, force: true });
    await mkdir(building, { recursive: true });
    const placed: string[] = [];
    for (const [name, target] of files) {
      if (!present.has(name)) continue;
      const file = path.join(building, path.basename(target));
      await rename(staged.pathOf(name), file);
      placed.push(file);
    }
    await flushFiles([...placed, building]);
    // The folder in place is set aside by a rename, and removed once the new one has its place:
    // another instance reading it meanwhile misses it between two renames, not for a whole removal.
    const aside = path.join(path.dirname(folder), `.${path.basename(folder)}.replaced.tmp`);
    await rm(aside, { recursive: true, force: true });
    await rename(folder, aside).catch((error: unknown) => {
      if (!isMissing(error)) throw error;
    });
    await rename(building, folder);
    await flushFiles([path.dirname(folder)]);
    await rm(aside, { recursive: true, force: true });
  }
}
