/**
 * The start-up sweep of a data folder, run before the first request: after a crash the database
 * and the files can disagree in one direction only (files are flushed before the rows that point at
 * them commit, and removed after the rows that pointed at them are gone), so the sweep
 *   - removes files no row points at: derived previews of deleted images, segmentation folders of
 *     deleted or never-published segmentations, stored originals of deleted images, staging folders;
 *   - fails work whose files are missing (an image whose preview is gone, a segmentation whose
 *     outlines are gone), with a reason a client can act on, so no row points at a missing file.
 * Conversions and predictions that were running are the services' to recover (redone once).
 *
 * On a folder shared by several instances, what no row refers to may be another instance's work
 * in progress: with `graceMs`, only what has also not changed for that long goes (sweep-age.ts).
 */
import { access, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { StateStore } from '../../domain/state.js';
import type { ObjectStore } from '../../domain/object-store.js';
import type { DataLayout } from '../data-layout.js';
import { untouchedFor } from './sweep-age.js';

export interface SweepReport {
  filesRemoved: number;
  imagesFailed: number;
  segmentationsDropped: number;
}

export interface SweepOptions {
  /** Only what has not changed for this long is removed; 0 (one owner of the folder) removes at once. */
  graceMs?: number;
}

export async function sweepDataFolder(
  state: StateStore,
  store: ObjectStore,
  folders: DataLayout,
  nowIso: () => string,
  { graceMs = 0 }: SweepOptions = {},
): Promise<SweepReport> {
  const report: SweepReport = { filesRemoved: 0, imagesFailed: 0, segmentationsDropped: 0 };
  const removeIfUntouched = async (target: string): Promise<number> =>
    (await untouchedFor(target, graceMs)) ? remove(target) : 0;
  // Uploads still streaming and local copies of remote objects never outlive the process that made them.
  for (const dir of [folders.incoming, folders.cache])
    for (const entry of await entries(dir))
      report.filesRemoved += await removeIfUntouched(path.join(dir, entry));

  for (const entry of await entries(folders.derived)) {
    if (!(await state.images.get(entry)))
      report.filesRemoved += await removeIfUntouched(path.join(folders.derived, entry));
  }
  const segmentationIds = await state.segmentations.allIds();
  for (const entry of await entries(folders.segmentations)) {
    if (!segmentationIds.has(entry))
      report.filesRemoved += await removeIfUntouched(path.join(folders.segmentations, entry));
  }
  // The store's own staging files, open uploads and objects no row refers to (where it can list them).
  report.filesRemoved += await store.sweepUnreferenced({
    uploadIds: await state.images.multipartUploadIds(),
    keyPrefixes: new Set(
      [...(await state.images.storageKeys())].map((key) => key.slice(0, key.lastIndexOf('/') + 1)),
    ),
  });

  for (const image of await state.images.withStatus('ready')) {
    const files = [image.derived?.previewPath, image.derived?.thumbnailPath];
    // Only a missing object is missing: a store that cannot answer now must not fail images for good.
    if ((await everyFileThere(files)) && (await store.exists(image.storageKey).catch(() => true))) continue;
    await state.transaction(async () => {
      await state.images.put({
        ...image,
        uploadStatus: 'failed',
        uploadError:
          'The stored file of this image was lost (its data folder was changed by hand). Upload it again.',
        processedAt: nowIso(),
      });
    });
    report.imagesFailed++;
  }
  for (const id of segmentationIds) {
    if (await everyFileThere([folders.segmentationOf(id).result])) continue;
    await state.transaction(async () => {
      const row = await state.segmentations.get(id);
      if (!row) return;
      for (const shareId of await state.shares.idsOfSegmentation(id)) await state.shares.delete(shareId);
      await state.segmentations.delete(id);
      const prediction = await state.predictions.get(row.predictionId);
      if (prediction)
        await state.predictions.put({
          ...prediction,
          status: 'FAILED',
          segmentationId: null,
          cellCount: null,
          error:
            'The result of this prediction was lost (its data folder was changed by hand). Submit it again.',
        });
    });
    report.segmentationsDropped++;
  }
  return report;
}

async function entries(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}

async function remove(target: string): Promise<number> {
  await rm(target, { recursive: true, force: true });
  return 1;
}

async function everyFileThere(files: ReadonlyArray<string | undefined>): Promise<boolean> {
  for (const file of files) {
    if (!file) return false;
    try {
      await access(file);
    } catch {
      return false;
    }
  }
  return true;
}
