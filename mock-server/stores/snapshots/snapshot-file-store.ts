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
      const derived = this.layout.derivedFilesOf(image.id);
      files.push(await localFile(derivedEntry(image.id, 'preview.png'), derived.preview));
      files.push(await localFile(derivedEntry(image.id, 'thumbnail.png'), derived.thumbnail));
      files.push(await localFile(derivedEntry(image.id, 'plane.bin'), derived.plane));
    }
    for (const segmentation of rows.segmentations) {
      const { result, preview } = this.layout.segmentationOf(segmentation.id);
      files.push(await localFile(segmentationEntry(segmentation.id, 'result.json'), result));
      if (segmentation.hasPreview)
        files.push(await localFile(segmentationEntry(segmentation.id, 'preview.png'), preview));
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
      await this.placeFolder(
        target.folder,
        [
          [derivedEntry(image.id, 'preview.png'), target.preview],
          [derivedEntry(image.id, 'thumbnail.png'), target.thumbnail],
          [derivedEntry(image.id, 'plane.bin'), target.plane],
        ],
        staged,
        present,
      );
      images.push({
        ...image,
        derived: { ...image.derived, previewPath: target.preview, thumbnailPath: target.thumbnail },
      });
    }
    for (const segmentation of rows.segmentations) {
      const target = this.layout.segmentationOf(segmentation.id);
      await this.placeFolder(
        target.folder,
        [
          [segmentationEntry(segmentation.id, 'result.json'), target.result],
          [segmentationEntry(segmentation.id, 'preview.png'), target.preview],
        ],
        staged,
        present,
      );
    }
    return images;
  }

  async remove(files: {
    storageKeys: string[];
    imageIds: string[];
    segmentationIds: string[];
  }): Promise<void> {
    for (const key of files.storageKeys) await this.store.deleteObject(key);
    for (const id of files.imageIds) await removeFolder(this.layout.derivedFilesOf(id).folder);
    for (const id of files.segmentationIds) await removeFolder(this.layout.segmentationOf(id).folder);
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
    await rm(folder, { recursive: true, force: true });
    await rename(building, folder);
    await flushFiles([path.dirname(folder)]);
  }
}
