import { createWriteStream } from 'node:fs';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import {
  type ObjectStore,
  ObjectStoreError,
  type PartReceiver,
  type PutObjectOptions,
  type ReferencedByState,
} from '../../domain/object-store.js';
import { checkObjectKey as checkKey } from './s3-rules.js';
import { syncFile, syncFolders } from '../files/flush-files.js';
import { entriesOf, removeIfUnchanged, unchangedSince } from '../files/sweep-age.js';
import { EmbeddedMultipartUploads } from './multipart-uploads.js';
import { isMissing, noSuchKey } from './store-errors.js';

/**
 * The default object store: objects are files under the store's folder, written to its staging
 * folder first and renamed into place, flushed before they are answered. Its resumable uploads,
 * and the part URLs that point at this mock (http/storage/storage-router.ts serves them), are the
 * class it extends (multipart-uploads.ts).
 */
export class EmbeddedObjectStore extends EmbeddedMultipartUploads implements ObjectStore {
  get partReceiver(): PartReceiver {
    return this;
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
    const handle = await fsp.open(file, 'r').catch((error: unknown) => {
      throw isMissing(error) ? noSuchKey(key) : error;
    });
    return handle.createReadStream();
  }

  async headObject(key: string): Promise<{ size: number } | null> {
    try {
      const stat = await fsp.stat(this.objectPath(key));
      return stat.isFile() ? { size: stat.size } : null;
    } catch (error) {
      if (isMissing(error)) return null;
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
      if (isMissing(error) || (error as NodeJS.ErrnoException).code === 'EISDIR') return;
      throw error;
    }
    await this.pruneEmptyDirs(path.dirname(file));
  }

  async deletePrefix(prefix: string): Promise<number> {
    if (prefix === '' || prefix.includes('\0') || prefix.includes('\\') || prefix.startsWith('/')) {
      throw new ObjectStoreError('InvalidArgument', `Invalid key prefix ${JSON.stringify(prefix)}`);
    }
    const root = this.layout.objects;
    // The walk starts at the folder the prefix names up to its last slash and enters only those it covers.
    const folderKey = prefix.slice(0, prefix.lastIndexOf('/') + 1);
    if (folderKey !== '') checkKey(folderKey.slice(0, -1));
    const start = path.resolve(root, folderKey);
    let deleted = 0;
    // Folder by folder: one that vanishes while it is walked (a delete beside this one pruned it)
    // is skipped alone, where Node's recursive listing fails as a whole.
    const visit = async (folder: string, keyPrefix: string): Promise<void> => {
      const entries = await fsp
        .readdir(folder, { withFileTypes: true })
        .catch((error: NodeJS.ErrnoException) => {
          if (isMissing(error) || error.code === 'ENOTDIR') return [];
          throw error;
        });
      for (const entry of entries) {
        const key = keyPrefix + entry.name;
        const full = path.join(folder, entry.name);
        if (!entry.isDirectory()) {
          if (key.startsWith(prefix)) {
            await fsp.rm(full, { force: true });
            deleted += 1;
          }
        } else if (`${key}/`.startsWith(prefix)) {
          await visit(full, `${key}/`);
          // an emptied folder goes; one still holding another key's objects stays
          await fsp.rmdir(full).catch(() => undefined);
        }
      }
    };
    await visit(start, folderKey);
    if (start !== root) await this.pruneEmptyDirs(start);
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
    const { changedBy } = referenced;
    let removed = 0;
    for (const entry of await entriesOf(this.layout.tmp))
      removed += await removeIfUnchanged(path.join(this.layout.tmp, entry), changedBy);
    for (const uploadId of await entriesOf(this.layout.multipart))
      if (!referenced.uploadIds.has(uploadId))
        removed += await removeIfUnchanged(this.layout.uploadFolder(uploadId), changedBy);
    // Keys are `<kind>/<uuid>/<name>`: one two-segment prefix per image.
    for (const first of await entriesOf(this.layout.objects)) {
      for (const second of await entriesOf(path.join(this.layout.objects, first))) {
        const prefix = `${first}/${second}/`;
        if (referenced.keyPrefixes.has(prefix)) continue;
        if (!(await unchangedSince(path.join(this.layout.objects, first, second), changedBy))) continue;
        removed += await this.deletePrefix(prefix).catch(() => 0);
      }
    }
    return removed;
  }

  // ---- internals -------------------------------------------------------------------------------

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
