/**
 * What the embedded store keeps on disk about each open upload (folders in storeLayout,
 * stores/data-layout.ts): `upload.json` (key and plan, flushed when the upload opens) and one
 * `<part>.json` per part that arrived whole (MD5, size, writer). An upload outlives the process
 * that opened it, so records are read back from disk on first use and kept in memory.
 */
import * as fsp from 'node:fs/promises';
import path from 'node:path';

import type { MultipartPlan, UploadedPart } from '../../domain/object-store.js';
import type { StoreLayout } from '../data-layout.js';
import { isMissing, syncFile, syncFolders } from './disk.js';
import { asStoreError, noSuchUpload } from './store-errors.js';

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
  /** The store instance (process) that wrote the bytes; parts of an earlier one are re-hashed at complete. */
  writer: string;
}

/** A part as recorded, with the process that wrote its bytes. */
export interface StoredPart extends UploadedPart {
  writer: string;
}

const UPLOAD_ID = /^[A-Za-z0-9_-]{16,128}$/;

export class UploadRecords {
  private readonly uploads = new Map<string, UploadRecord>();
  /** Uploads being read from disk, so that happens once. */
  private readonly loading = new Map<string, Promise<UploadRecord>>();

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
      await this.writeFileAtomic(this.layout.uploadRecord(uploadId), JSON.stringify(record));
    } catch (error) {
      await fsp.rm(dir, { recursive: true, force: true });
      throw asStoreError(error);
    }
    this.uploads.set(uploadId, record);
  }

  /** The upload's record, from memory or from disk; NoSuchUpload when there is none. */
  async get(uploadId: string): Promise<UploadRecord> {
    if (typeof uploadId !== 'string' || !UPLOAD_ID.test(uploadId)) throw noSuchUpload(uploadId);
    const cached = this.uploads.get(uploadId);
    if (cached !== undefined) return cached;
    let loading = this.loading.get(uploadId);
    if (loading === undefined) {
      loading = this.load(uploadId);
      this.loading.set(uploadId, loading);
      const done = () => this.loading.delete(uploadId);
      loading.then(done, done);
    }
    return loading;
  }

  forget(uploadId: string): void {
    this.uploads.delete(uploadId);
  }

  /** Parts that arrived whole, in part-number order. */
  async readParts(uploadId: string): Promise<StoredPart[]> {
    const parts: StoredPart[] = [];
    let names: string[];
    try {
      names = await fsp.readdir(this.layout.uploadFolder(uploadId));
    } catch (error) {
      if (!isMissing(error as NodeJS.ErrnoException)) throw error;
      // Aborted or completed meanwhile; a read racing the abort may have cached its record again.
      this.uploads.delete(uploadId);
      throw noSuchUpload(uploadId);
    }
    for (const name of names) {
      const partNumber = this.layout.partNumberOf(name);
      if (partNumber === undefined) continue;
      try {
        const stored = JSON.parse(
          await fsp.readFile(this.layout.partRecord(uploadId, partNumber), 'utf8'),
        ) as PartRecord;
        parts.push({ partNumber, etag: `"${stored.md5}"`, size: stored.size, writer: stored.writer });
      } catch (error) {
        // Removed meanwhile, or cut short by a power loss (it was never flushed): not a part.
        if (!isMissing(error as NodeJS.ErrnoException) && !(error instanceof SyntaxError)) throw error;
      }
    }
    return parts.sort((a, b) => a.partNumber - b.partNumber);
  }

  /** Renamed into place, not flushed: the complete flushes what it assembles. */
  async writePart(uploadId: string, partNumber: number, record: PartRecord): Promise<void> {
    const tmp = await this.stagingFile(`record-${partNumber}`);
    await fsp.writeFile(tmp, JSON.stringify(record));
    await fsp.rename(tmp, this.layout.partRecord(uploadId, partNumber));
  }

  async hasPart(uploadId: string, partNumber: number): Promise<boolean> {
    try {
      await fsp.access(this.layout.partRecord(uploadId, partNumber));
      return true;
    } catch {
      return false;
    }
  }

  async removePart(uploadId: string, partNumber: number): Promise<void> {
    await fsp.rm(this.layout.partRecord(uploadId, partNumber), { force: true });
  }

  private async load(uploadId: string): Promise<UploadRecord> {
    try {
      const record = JSON.parse(
        await fsp.readFile(this.layout.uploadRecord(uploadId), 'utf8'),
      ) as UploadRecord;
      this.uploads.set(uploadId, record);
      return record;
    } catch (error) {
      if (isMissing(error as NodeJS.ErrnoException)) throw noSuchUpload(uploadId);
      throw error;
    }
  }

  private async writeFileAtomic(file: string, content: string): Promise<void> {
    const tmp = await this.stagingFile('meta');
    await fsp.writeFile(tmp, content);
    await syncFile(tmp);
    await fsp.rename(tmp, file);
    await syncFolders(path.dirname(file));
  }
}
