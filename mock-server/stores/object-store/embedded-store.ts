import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import {
  type CompletedObject,
  type MultipartPlan,
  type ObjectStore,
  ObjectStoreError,
  type PartSelection,
  type PutObjectOptions,
  type ReferencedByState,
  type UploadedPart,
} from '../../domain/object-store.js';
import { checkObjectKey as checkKey } from './s3-rules.js';
import { storeLayout, type StoreLayout } from '../data-layout.js';
import { syncFile } from '../files/flush-files.js';
import { isMissing, syncFolders } from './disk.js';
import { unchangedSince } from '../files/sweep-age.js';
import type { FolderLockOptions } from './folder-lock.js';
import { EmbeddedMultipartUploads } from './multipart-uploads.js';
import { noSuchKey } from './store-errors.js';

export interface EmbeddedObjectStoreOptions {
  /** The store's folder; what lies under it is storeLayout's (stores/data-layout.ts). */
  dataDir: string;
  /** Absolute base URL the storage router is reachable at, e.g. `http://127.0.0.1:8000/storage`. */
  storageUrl: string;
  /** HMAC key for part URLs; random per process when omitted. */
  signingSecret?: string | Buffer;
  clock?: () => Date;
  /** How the upload locks shared with other processes tell a dead holder (folder-lock.ts). */
  locks?: FolderLockOptions;
}

/**
 * The default object store: objects are files under the store's folder, written to its staging
 * folder first and renamed into place, flushed before they are answered. Resumable uploads are
 * multipart-uploads.ts's; their part URLs point at this mock (`partReceiver`, which
 * http/storage/storage-router.ts serves).
 */
export class EmbeddedObjectStore implements ObjectStore {
  readonly dataDir: string;
  readonly partReceiver: EmbeddedMultipartUploads;
  private readonly layout: StoreLayout;
  private made: Promise<void> | undefined;

  constructor(options: EmbeddedObjectStoreOptions) {
    this.dataDir = path.resolve(options.dataDir);
    this.layout = storeLayout(this.dataDir);
    this.partReceiver = new EmbeddedMultipartUploads({
      layout: this.layout,
      storageUrl: options.storageUrl,
      signingSecret: options.signingSecret,
      clock: options.clock ?? (() => new Date()),
      stagingFile: (label) => this.stagingFile(label),
      locks: options.locks,
    });
  }

  // ---- multipart: multipart-uploads.ts ---------------------------------------------------------

  async createMultipartUpload(key: string, plan: MultipartPlan): Promise<{ uploadId: string }> {
    await this.ready();
    return this.partReceiver.createMultipartUpload(key, plan);
  }

  presignPart(uploadId: string, partNumber: number, expiresInSeconds: number): Promise<string> {
    return this.partReceiver.presignPart(uploadId, partNumber, expiresInSeconds);
  }

  listParts(uploadId: string): Promise<UploadedPart[]> {
    return this.partReceiver.listParts(uploadId);
  }

  completeMultipartUpload(uploadId: string, parts?: PartSelection[]): Promise<CompletedObject> {
    return this.partReceiver.completeMultipartUpload(uploadId, parts);
  }

  abortMultipartUpload(uploadId: string): Promise<void> {
    return this.partReceiver.abortMultipartUpload(uploadId);
  }

  /** Resolves when no part PUT is streaming; tests use it to look at the disk afterwards. */
  whenIdle(): Promise<void> {
    return this.partReceiver.whenIdle();
  }

  get partsInFlight(): number {
    return this.partReceiver.partsInFlight;
  }

  // ---- objects ---------------------------------------------------------------------------------

  /** Where an object's bytes are (or would be) on disk. */
  objectPath(key: string): string {
    checkKey(key);
    return this.layout.objectFile(key);
  }

  /** The store's own file: nothing to copy. */
  async localFileOf(key: string): Promise<string> {
    return this.objectPath(key);
  }

  async forgetLocalFile(): Promise<void> {}

  async putObject(
    key: string,
    source: NodeJS.ReadableStream | string,
    options: PutObjectOptions = {},
  ): Promise<{ size: number }> {
    const target = this.objectPath(key);
    await this.ready();
    await fsp.mkdir(path.dirname(target), { recursive: true });
    if (typeof source === 'string' && options.move === true) {
      try {
        await fsp.rename(source, target);
        await syncFile(target);
        await syncFolders(path.dirname(target));
        return { size: (await fsp.stat(target)).size };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      }
    }
    const tmp = await this.stagingFile('object');
    try {
      if (typeof source === 'string') await fsp.copyFile(source, tmp);
      else await pipeline(source, createWriteStream(tmp, { flags: 'wx' }));
      await syncFile(tmp);
      await fsp.rename(tmp, target);
      await syncFolders(path.dirname(target));
    } catch (error) {
      await fsp.rm(tmp, { force: true });
      throw error;
    }
    if (typeof source === 'string' && options.move === true) await fsp.rm(source, { force: true });
    return { size: (await fsp.stat(target)).size };
  }

  async readObject(key: string): Promise<Readable> {
    const file = this.objectPath(key);
    const handle = await fsp.open(file, 'r').catch((error: NodeJS.ErrnoException) => {
      throw isMissing(error) ? noSuchKey(key) : error;
    });
    return handle.createReadStream();
  }

  async headObject(key: string): Promise<{ size: number } | null> {
    try {
      const stat = await fsp.stat(this.objectPath(key));
      return stat.isFile() ? { size: stat.size } : null;
    } catch (error) {
      if (isMissing(error as NodeJS.ErrnoException)) return null;
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    return (await this.headObject(key)) !== null;
  }

  async deleteObject(key: string): Promise<void> {
    const file = this.objectPath(key);
    try {
      await fsp.unlink(file);
    } catch (error) {
      if (isMissing(error as NodeJS.ErrnoException) || (error as NodeJS.ErrnoException).code === 'EISDIR')
        return;
      throw error;
    }
    await this.pruneEmptyDirs(path.dirname(file));
  }

  async deletePrefix(prefix: string): Promise<number> {
    if (prefix === '' || prefix.includes('\0') || prefix.includes('\\') || prefix.startsWith('/')) {
      throw new ObjectStoreError('InvalidArgument', `Invalid key prefix ${JSON.stringify(prefix)}`);
    }
    const root = this.layout.objects;
    const slash = prefix.lastIndexOf('/');
    const dirKey = slash === -1 ? '' : prefix.slice(0, slash);
    if (dirKey !== '') checkKey(dirKey);
    const startDir = dirKey === '' ? root : path.join(root, ...dirKey.split('/'));
    let deleted = 0;
    const visit = async (dir: string, keyPrefix: string): Promise<void> => {
      let entries: import('node:fs').Dirent[];
      try {
        entries = await fsp.readdir(dir, { withFileTypes: true });
      } catch (error) {
        if (isMissing(error as NodeJS.ErrnoException) || (error as NodeJS.ErrnoException).code === 'ENOTDIR')
          return;
        throw error;
      }
      for (const entry of entries) {
        const key = keyPrefix + entry.name;
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if ((key + '/').startsWith(prefix) || prefix.startsWith(key + '/')) {
            await visit(full, key + '/');
            await fsp.rmdir(full).catch(() => undefined);
          }
        } else if (key.startsWith(prefix)) {
          await fsp.rm(full, { force: true });
          deleted += 1;
        }
      }
    };
    await visit(startDir, dirKey === '' ? '' : dirKey + '/');
    if (startDir !== root) await this.pruneEmptyDirs(startDir);
    return deleted;
  }

  // ---- start-up sweep --------------------------------------------------------------------------

  /**
   * Staging files never outlive the process that made them; an upload folder or an image's
   * objects no row refers to are what a crash between a row's delete and the files' removal left
   * behind. Each of these may also be work in progress (an upload opened, an object stored, before
   * its row commits), this process's or another instance's: only what last changed no later than
   * `referenced.changedBy` goes (stores/files/sweep-age.ts).
   */
  async sweepUnreferenced(referenced: ReferencedByState): Promise<number> {
    const untouched = (target: string) => unchangedSince(target, referenced.changedBy);
    let removed = 0;
    for (const entry of await entries(this.layout.tmp)) {
      const file = path.join(this.layout.tmp, entry);
      if (!(await untouched(file))) continue;
      await fsp.rm(file, { recursive: true, force: true });
      removed++;
    }
    for (const uploadId of await entries(this.layout.multipart)) {
      const folder = path.join(this.layout.multipart, uploadId);
      if (referenced.uploadIds.has(uploadId) || !(await untouched(folder))) continue;
      await fsp.rm(folder, { recursive: true, force: true });
      removed++;
    }
    // Keys are `<kind>/<uuid>/<name>`: one two-segment prefix per image.
    for (const first of await entries(this.layout.objects)) {
      for (const second of await entries(path.join(this.layout.objects, first))) {
        const prefix = `${first}/${second}/`;
        if (referenced.keyPrefixes.has(prefix)) continue;
        if (!(await untouched(path.join(this.layout.objects, first, second)))) continue;
        removed += await this.deletePrefix(prefix).catch(() => 0);
      }
    }
    return removed;
  }

  // ---- internals -------------------------------------------------------------------------------

  private ready(): Promise<void> {
    this.made ??= (async () => {
      for (const dir of this.layout.folders) await fsp.mkdir(dir, { recursive: true });
    })();
    return this.made;
  }

  /** A fresh name in the staging folder, on the same file system as the objects: renames are atomic. */
  private async stagingFile(label: string): Promise<string> {
    await this.ready();
    return path.join(this.layout.tmp, `${label}-${randomBytes(8).toString('hex')}.tmp`);
  }

  private async pruneEmptyDirs(from: string): Promise<void> {
    const root = this.layout.objects;
    let dir = from;
    while (dir.startsWith(root + path.sep)) {
      try {
        await fsp.rmdir(dir);
      } catch {
        return;
      }
      dir = path.dirname(dir);
    }
  }
}

async function entries(dir: string): Promise<string[]> {
  return fsp.readdir(dir).catch(() => []);
}
