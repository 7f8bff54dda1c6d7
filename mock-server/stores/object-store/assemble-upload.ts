/**
 * A complete's last step, under the upload's lock: the chosen parts become the object. When the
 * parts are slots 1..k of the data file and nobody can still write into it, the data file is cut
 * to their end and renamed (no copy); otherwise the parts are copied into a new file.
 *
 * "Nobody can still write" across processes: a PUT writing a slot in place claims it on disk
 * before it opens the data file, and marks the claim done after closing it. The data file is
 * first renamed aside, so a PUT that has not opened it yet cannot any more (it answers
 * NoSuchUpload); the claims then name every PUT that may hold it open. This process stops its own;
 * another process's cannot be stopped from here, so while one of those still writes, the parts are
 * copied out and its late bytes land in a file that is about to be removed, never in the object.
 */
import * as fsp from 'node:fs/promises';
import path from 'node:path';

import type { MultipartPlan } from '../../domain/object-store.js';
import type { StoreLayout } from '../data-layout.js';
import { syncFile, syncFolders } from '../files/flush-files.js';
import { type ByteRange, copyRanges, partOffset } from './part-bytes.js';
import { asStoreError, isMissing } from './store-errors.js';
import type { StoredPart, UploadRecords } from './upload-records.js';

export interface Assembly {
  uploadId: string;
  key: string;
  plan: MultipartPlan;
  selected: readonly StoredPart[];
  arrived: readonly StoredPart[];
  /** Stops this process's writers of the upload; answers the claims they held. */
  stopOwnWriters: () => Promise<ReadonlySet<string>>;
}

export async function assembleUpload(
  layout: StoreLayout,
  records: UploadRecords,
  stagingFile: (label: string) => Promise<string>,
  { uploadId, key, plan, selected, arrived, stopOwnWriters }: Assembly,
): Promise<number> {
  const size = selected.reduce((sum, part) => sum + part.size, 0);
  const target = layout.objectFile(key);
  const data = layout.uploadData(uploadId);
  const aside = asideOf(data);
  await fsp.rename(data, aside).catch((error: unknown) => {
    throw asStoreError(error);
  });
  let tmp: string | undefined;
  try {
    const stopped = await stopOwnWriters();
    const stillWriting = (await records.writingClaims(uploadId)).some(
      (claim) => claim === null || !stopped.has(claim),
    );
    const inPlace =
      !stillWriting &&
      selected.every((part, index) => part.partNumber === index + 1 && part.file === undefined) &&
      arrived.every((part) => part.partNumber <= selected.length);
    if (inPlace) {
      // Parts 1..k, nothing after them: the data file cut to their end is the object.
      const handle = await fsp.open(aside, 'r+');
      try {
        await handle.truncate(size);
        await handle.sync();
      } finally {
        await handle.close();
      }
    } else {
      tmp = await stagingFile('assembly');
      await copyRanges(
        selected.map((part) => byteRange(layout, records, uploadId, plan, part, aside)),
        tmp,
      );
      await syncFile(tmp);
    }
    await fsp.mkdir(path.dirname(target), { recursive: true });
    await fsp.rename(tmp ?? aside, target);
    await syncFolders(path.dirname(target));
  } catch (error) {
    if (tmp !== undefined) await fsp.rm(tmp, { force: true });
    // A failure changes nothing: the data file goes back where the parts are looked for.
    await fsp.rename(aside, data).catch(() => undefined);
    throw asStoreError(error);
  }
  return size;
}

const asideOf = (data: string) => `${data}.completing`;

/**
 * A complete stopped between its two renames (the mock killed while it flushed) left the data
 * file aside: put back, under the upload's lock, so the next complete finds the parts.
 */
export async function restoreDataFile(layout: StoreLayout, uploadId: string): Promise<void> {
  const data = layout.uploadData(uploadId);
  await fsp.rename(asideOf(data), data).catch((error: unknown) => {
    if (!isMissing(error)) throw asStoreError(error);
  });
}

/** Where a recorded part's bytes are; `data` is the data file's current name. */
export function byteRange(
  layout: StoreLayout,
  records: UploadRecords,
  uploadId: string,
  plan: MultipartPlan,
  part: StoredPart,
  data = layout.uploadData(uploadId),
): ByteRange {
  return part.file === undefined
    ? { file: data, start: partOffset(plan, part.partNumber), size: part.size }
    : { file: records.partFile(uploadId, part.file), start: 0, size: part.size };
}
