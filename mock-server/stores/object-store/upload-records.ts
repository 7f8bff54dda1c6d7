/**
 * What the embedded store keeps on disk about each open upload (folders in storeLayout,
 * stores/data-layout.ts): `upload.json` (key and plan, flushed when the upload opens), one
 * `<part>.json` per part that arrived whole (MD5, size, writer, where its bytes are) and one
 * `<part>.slot` per slot claimed by a first PUT. Several processes may serve one upload (instances
 * on a shared folder), so nothing here is kept in memory: every answer is read from disk when it
 * is asked for. The reads are of small files, and an upload's record is immutable while it exists;
 * what changes is whether it exists, which only the disk can tell.
 */
import * as fsp from 'node:fs/promises';
import path from 'node:path';

import type { MultipartPlan, UploadedPart } from '../../domain/object-store.js';
import type { StoreLayout } from '../data-layout.js';
import { removeFolder } from '../files/remove-folder.js';
import { syncFile, syncFolders } from '../files/flush-files.js';
import { asStoreError, isMissing, noSuchUpload } from './store-errors.js';

export interface UploadRecord {
  uploadId: string;
  key: string;
  plan: MultipartPlan;
  createdAt: string;
}

/** `<partNumber>.json` in the upload's folder: a part that arrived whole. */
export interface PartRecord {
  /** MD5 hex of the part's bytes: the ETag without quotes. */
  md5: string;
  size: number;
  /** The store instance (process) that wrote the bytes; parts of another one are re-hashed at complete. */
  writer: string;
  /** The PUT that stored it: a PUT that started before another finished is not recorded over it. */
  id?: string;
  /** The part's own file in the upload's folder (a resent part); absent: its slot of `data`. */
  file?: string;
}

/** A part as recorded, with where its bytes are. */
export type StoredPart = UploadedPart & Omit<PartRecord, 'md5' | 'size'>;

/** `<partNumber>.slot`: the PUT writing the slot in place, and whether it has stopped writing. */
interface SlotClaim {
  claim: string;
  state: 'writing' | 'done';
}

const UPLOAD_ID = /^[A-Za-z0-9_-]{16,128}$/;

export class UploadRecords {
  constructor(
    private readonly layout: StoreLayout,
    /** A fresh path in the store's staging folder. */
    private readonly stagingFile: (label: string) => Promise<string>,
  ) {}

  /** Opens an upload on disk: its data file sized to the plan, then its record, both flushed. */
  async create(record: UploadRecord): Promise<void> {
    const { uploadId, plan } = record;
    const dir = this.layout.uploadFolder(uploadId);
    await fsp.mkdir(dir, { recursive: true });
    try {
      // Sized once (sparse where the file system allows): parts land at their offsets, and the
      // complete renames this file instead of copying the parts into a new one.
      const data = await fsp.open(this.layout.uploadData(uploadId), 'wx');
      try {
        await data.truncate(plan.totalSize);
        await data.sync();
      } finally {
        await data.close();
      }
      const tmp = await this.stagingFile('meta');
      await fsp.writeFile(tmp, JSON.stringify(record));
      await syncFile(tmp);
      await fsp.rename(tmp, this.layout.uploadRecord(uploadId));
      await syncFolders(dir);
    } catch (error) {
      await fsp.rm(dir, { recursive: true, force: true });
      throw asStoreError(error);
    }
  }

  /** The upload's record, read from disk; NoSuchUpload when there is none (any more). */
  async get(uploadId: string): Promise<UploadRecord> {
    if (typeof uploadId !== 'string' || !UPLOAD_ID.test(uploadId)) throw noSuchUpload(uploadId);
    try {
      return JSON.parse(await fsp.readFile(this.layout.uploadRecord(uploadId), 'utf8')) as UploadRecord;
    } catch (error) {
      if (isMissing(error)) throw noSuchUpload(uploadId);
      throw error;
    }
  }

  /**
   * Ends the upload for every process at once (its record goes first: from then on it does not
   * exist), then removes its folder.
   */
  async end(uploadId: string): Promise<void> {
    await fsp.rm(this.layout.uploadRecord(uploadId), { force: true });
    await removeFolder(this.layout.uploadFolder(uploadId));
  }

  /** Parts that arrived whole, in part-number order. */
  async readParts(uploadId: string): Promise<StoredPart[]> {
    const parts: StoredPart[] = [];
    for (const name of await this.names(uploadId)) {
      const partNumber = this.layout.partNumberOf(name);
      if (partNumber === undefined) continue;
      const stored = await this.readPart(uploadId, partNumber);
      if (stored === undefined) continue;
      const { md5, ...rest } = stored;
      parts.push({ partNumber, etag: `"${md5}"`, ...rest });
    }
    return parts.sort((a, b) => a.partNumber - b.partNumber);
  }

  /** One part's record; undefined when there is none. */
  async readPart(uploadId: string, partNumber: number): Promise<PartRecord | undefined> {
    try {
      return JSON.parse(
        await fsp.readFile(this.layout.partRecord(uploadId, partNumber), 'utf8'),
      ) as PartRecord;
    } catch (error) {
      // Removed meanwhile, or cut short by a power loss (it was never flushed): not a part.
      if (isMissing(error) || error instanceof SyntaxError) return undefined;
      throw error;
    }
  }

  /** Renamed into place, not flushed: the complete flushes what it assembles. */
  async writePart(uploadId: string, partNumber: number, record: PartRecord): Promise<void> {
    const tmp = await this.stagingFile(`record-${partNumber}`);
    await fsp.writeFile(tmp, JSON.stringify(record));
    await fsp.rename(tmp, this.layout.partRecord(uploadId, partNumber)).catch(async (error) => {
      await fsp.rm(tmp, { force: true });
      throw isMissing(error) ? noSuchUpload(uploadId) : error;
    });
  }

  async removePart(uploadId: string, partNumber: number): Promise<void> {
    await fsp.rm(this.layout.partRecord(uploadId, partNumber), { force: true });
  }

  /** A part's own file, by the name its record holds. */
  partFile(uploadId: string, name: string): string {
    return path.join(this.layout.uploadFolder(uploadId), path.basename(name));
  }

  /**
   * Claims a part's slot of the data file for one PUT to write in place, atomically across
   * processes (O_EXCL): false when an earlier PUT claimed it (a slot is written in place once).
   */
  async claimSlot(uploadId: string, partNumber: number, claim: string): Promise<boolean> {
    try {
      await fsp.writeFile(
        this.layout.slotClaim(uploadId, partNumber),
        JSON.stringify({ claim, state: 'writing' } satisfies SlotClaim),
        { flag: 'wx' },
      );
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (code === 'ENOENT') throw noSuchUpload(uploadId);
      throw error;
    }
  }

  /** The claiming PUT has closed the data file: nothing more of it can land in the slot. */
  async releaseSlot(uploadId: string, partNumber: number, claim: string): Promise<void> {
    await fsp
      .writeFile(
        this.layout.slotClaim(uploadId, partNumber),
        JSON.stringify({ claim, state: 'done' } satisfies SlotClaim),
      )
      .catch(() => undefined); // the upload ended meanwhile
  }

  /**
   * Claims whose PUT may still write into the data file, by claim; `null` for a claim that cannot
   * be read (being written at this moment), which counts as writing.
   */
  async writingClaims(uploadId: string): Promise<Array<string | null>> {
    const writing: Array<string | null> = [];
    for (const name of await this.names(uploadId)) {
      const partNumber = this.layout.claimedPartOf(name);
      if (partNumber === undefined) continue;
      try {
        const claim = JSON.parse(
          await fsp.readFile(this.layout.slotClaim(uploadId, partNumber), 'utf8'),
        ) as SlotClaim;
        if (claim.state !== 'done') writing.push(claim.claim);
      } catch {
        writing.push(null);
      }
    }
    return writing;
  }

  private async names(uploadId: string): Promise<string[]> {
    try {
      return await fsp.readdir(this.layout.uploadFolder(uploadId));
    } catch (error) {
      if (isMissing(error)) throw noSuchUpload(uploadId);
      throw error;
    }
  }
}
