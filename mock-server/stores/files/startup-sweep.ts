/**
 * The start-up sweep of a data folder: after a crash the database and the files can disagree in
 * one direction only (files are flushed before the rows that point at them commit, and removed
 * after the rows that pointed at them are gone), so the sweep
 *   - removes files no row points at: derived previews of deleted images, segmentation folders of
 *     deleted or never-published segmentations, stored originals of deleted images, staging folders;
 *   - fails work whose files are missing (an image whose preview is gone, a segmentation whose
 *     outlines are gone), with a reason a client can act on, so no row points at a missing file.
 * Conversions and predictions that were running are the services' to recover (redone once).
 *
 * It runs in the background while the mock answers, so its cost does not grow the start-up: rows
 * are read a page at a time (its memory does not grow with the data either), files are checked a
 * page at a time, and whatever changed after it started is left alone (this process's own work in
 * progress, whose row may not be committed yet; on a shared folder another instance's too, within
 * `graceMs`: sweep-age.ts). Until it reaches an image or a segmentation whose file is gone, that
 * record answers as it is, as it would had the file gone while the mock ran; the sweep then fails
 * it with its reason.
 */
import { access } from 'node:fs/promises';
import path from 'node:path';
import { underOrganizationLock } from '../../domain/organizations.js';
import type { StateStore } from '../../domain/state.js';
import type { ObjectStore } from '../../domain/object-store.js';
import type { DataLayout } from '../data-layout.js';
import { entriesOf, removeIfUnchanged } from './sweep-age.js';

export interface SweepOptions {
  /**
   * Files that changed after this (file-system time, ms: sweep-age.ts's fileSystemNow, read before
   * the mock answers) are work in progress and stay. No default: `Date.now()` is not the file
   * system's clock, and a file made in its millisecond could read as made after it.
   */
  startedAt: number;
  /** Only what has not changed for this long before `startedAt` is removed; 0 (one owner of the folder) removes at once. */
  graceMs?: number;
  /** Stops the sweep between pages (the mock closing). */
  signal?: AbortSignal;
}

/** Rows read, and files checked, at a time. */
const PAGE_SIZE = 256;

const LOST_IMAGE =
  'The stored file of this image was lost (its data folder was changed by hand). Upload it again.';
const LOST_RESULT =
  'The result of this prediction was lost (its data folder was changed by hand). Submit it again.';

export async function sweepDataFolder(
  state: StateStore,
  store: ObjectStore,
  folders: DataLayout,
  nowIso: () => string,
  { startedAt, graceMs = 0, signal }: SweepOptions,
) {
  const report = { filesRemoved: 0, imagesFailed: 0, segmentationsDropped: 0 };
  const changedBy = startedAt - graceMs;
  // Uploads still streaming and local copies of remote objects never outlive the process that made them.
  for (const dir of [folders.incoming, folders.cache])
    for (const entry of await entriesOf(dir))
      report.filesRemoved += await removeIfUnchanged(path.join(dir, entry), changedBy);

  for (const [dir, rows] of [
    [folders.derived, state.images],
    [folders.segmentations, state.segmentations],
  ] as const)
    for (const entry of await entriesOf(dir)) {
      signal?.throwIfAborted();
      if (!(await rows.get(entry)))
        report.filesRemoved += await removeIfUnchanged(path.join(dir, entry), changedBy);
    }
  // The store's own staging files, open uploads and objects no row refers to (where it can list them).
  signal?.throwIfAborted();
  report.filesRemoved += await store.sweepUnreferenced({
    uploadIds: await state.images.multipartUploadIds(),
    keyPrefixes: new Set(
      [...(await state.images.storageKeys())].map((key) => key.slice(0, key.lastIndexOf('/') + 1)),
    ),
    changedBy,
  });

  for (let after: string | null = null; ;) {
    signal?.throwIfAborted();
    const page = await state.images.pageAfter(after, PAGE_SIZE);
    if (page.length === 0) break;
    after = page[page.length - 1].id;
    const lost = await Promise.all(
      page.map(async (image) => {
        if (image.uploadStatus !== 'ready') return false;
        // Only a missing object is missing: a store that cannot answer now must not fail images for good.
        const there =
          (await everyFileThere([image.derived?.previewPath, image.derived?.thumbnailPath])) &&
          (await store.exists(image.storageKey).catch(() => true));
        return !there;
      }),
    );
    for (const [i, image] of page.entries()) {
      if (!lost[i]) continue;
      // Under the organization's lock, as a delete is: a delete between the read and the write
      // would otherwise be undone by the write.
      const failed = await underOrganizationLock(state, image.organizationId, async () => {
        // The row as it is now: the mock answered while the sweep ran, and may have changed it.
        const current = await state.images.get(image.id);
        if (!current || current.uploadStatus !== 'ready') return false;
        await state.images.put({
          ...current,
          uploadStatus: 'failed',
          uploadError: LOST_IMAGE,
          processedAt: nowIso(),
        });
        return true;
      });
      if (failed) report.imagesFailed++;
    }
  }
  for (let after: string | null = null; ;) {
    signal?.throwIfAborted();
    const ids = await state.segmentations.idsAfter(after, PAGE_SIZE);
    if (ids.length === 0) break;
    after = ids[ids.length - 1];
    const there = await Promise.all(ids.map((id) => everyFileThere([folders.segmentationOf(id).result])));
    for (const [i, id] of ids.entries()) {
      if (there[i]) continue;
      const organizationId = (await state.segmentations.get(id))?.organizationId;
      if (!organizationId) continue;
      const dropped = await underOrganizationLock(state, organizationId, async () => {
        const row = await state.segmentations.get(id);
        if (!row) return false;
        for (const shareId of await state.shares.idsOfSegmentation(id)) await state.shares.delete(shareId);
        await state.segmentations.delete(id);
        const prediction = await state.predictions.get(row.predictionId);
        if (prediction)
          await state.predictions.put({
            ...prediction,
            status: 'FAILED',
            segmentationId: null,
            cellCount: null,
            error: LOST_RESULT,
          });
        return true;
      });
      if (dropped) report.segmentationsDropped++;
    }
  }
  return report;
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
