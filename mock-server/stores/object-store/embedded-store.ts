import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { finished, type Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import {
  checkObjectKey as checkKey,
  checkPartSizes,
  matchSelection,
  type CompletedObject,
  type MultipartPlan,
  type ObjectStore,
  ObjectStoreError,
  type PartSelection,
  type PutObjectOptions,
  type UploadedPart,
  validateExpiry,
  validatePlan,
} from '../../domain/object-store.js';
import { PartUrlSigner } from './part-url-signer.js';

export interface EmbeddedObjectStoreOptions {
  /** Everything lives under here: `objects/`, `multipart/`, `tmp/`. */
  dataDir: string;
  /** Absolute base URL the storage router is reachable at, e.g. `http://127.0.0.1:8000/storage`. */
  storageUrl: string;
  /** HMAC key for part URLs; random per process when omitted. */
  signingSecret?: string | Buffer;
  clock?: () => Date;
}

export interface PutPartOptions {
  /** The request's `Content-MD5` header (base64 of the 16-byte digest), checked as S3 does. */
  contentMd5?: string;
  /** The request's declared length, when known: refused up front when larger than a part. */
  contentLength?: number;
}

export interface PartRequestQuery {
  expires: unknown;
  signature: unknown;
}

interface UploadRecord {
  uploadId: string;
  key: string;
  plan: MultipartPlan;
  createdAt: string;
}

const UPLOAD_ID = /^[A-Za-z0-9_-]{16,128}$/;
const PART_NUMBER_TEXT = /^[1-9]\d{0,4}$/;
const PART_FILE = /^([1-9]\d{0,4})\.part$/;
const MD5_B64 = /^[A-Za-z0-9+/]{22}==$/;

/**
 * Layout under dataDir:
 *   objects/<key>                                  finished objects
 *   multipart/<uploadId>/upload.json               key and plan
 *   multipart/<uploadId>/<partNumber>.part         part bytes
 *   multipart/<uploadId>/<partNumber>.md5          part MD5 hex (the ETag without quotes)
 *   tmp/                                           bytes in flight, renamed into place when whole
 * tmp/ sits on the same file system as the rest, so every rename is atomic: a part or object is
 * either absent, the old one, or the new one, never partial.
 */
export class EmbeddedObjectStore implements ObjectStore {
  readonly dataDir: string;
  readonly storageUrl: string;
  private readonly signer: PartUrlSigner;
  private readonly clock: () => Date;
  private readonly uploads = new Map<string, UploadRecord>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private ready: Promise<void> | undefined;

  constructor(options: EmbeddedObjectStoreOptions) {
    this.dataDir = path.resolve(options.dataDir);
    const url = new URL(options.storageUrl);
    this.storageUrl = url.toString().replace(/\/+$/, '');
    this.signer = new PartUrlSigner(options.signingSecret);
    this.clock = options.clock ?? (() => new Date());
  }

  // ---- multipart -------------------------------------------------------------------------------

  async createMultipartUpload(key: string, plan: MultipartPlan): Promise<{ uploadId: string }> {
    checkKey(key);
    validatePlan(plan);
    await this.init();
    const uploadId = randomBytes(24).toString('base64url');
    const record: UploadRecord = {
      uploadId,
      key,
      plan: { totalSize: plan.totalSize, partSize: plan.partSize, partCount: plan.partCount },
      createdAt: this.clock().toISOString(),
    };
    const dir = this.uploadDir(uploadId);
    await fsp.mkdir(dir, { recursive: true });
    await this.writeFileAtomic(path.join(dir, 'upload.json'), JSON.stringify(record));
    this.uploads.set(uploadId, record);
    return { uploadId };
  }

  async presignPart(uploadId: string, partNumber: number, expiresInSeconds: number): Promise<string> {
    const record = await this.upload(uploadId);
    checkPartNumber(String(partNumber), record.plan.partCount);
    validateExpiry(expiresInSeconds);
    const expires = Math.floor(this.clock().getTime() / 1000) + expiresInSeconds;
    const query = this.signer.query({ method: 'PUT', uploadId, partNumber: String(partNumber), expires });
    return `${this.storageUrl}/uploads/${encodeURIComponent(uploadId)}/parts/${partNumber}?${query}`;
  }

  /** Checks a part PUT's signature; throws SignatureDoesNotMatch or AccessDenied (both 403). */
  verifyPartRequest(method: string, uploadId: string, partNumber: string, query: PartRequestQuery): void {
    this.signer.verify({ method, uploadId, partNumber }, query, this.clock());
  }

  /**
   * Streams one part to disk and answers its quoted MD5 ETag. A part replaces any earlier part with
   * the same number, atomically; a body that ends early, is too large or fails its Content-MD5
   * leaves nothing behind.
   */
  async putPart(
    uploadId: string,
    partNumberText: string,
    body: NodeJS.ReadableStream,
    options: PutPartOptions = {},
  ): Promise<{ etag: string; size: number }> {
    const work = this.putPartNow(uploadId, partNumberText, body, options);
    this.inFlight.add(work);
    const forget = () => this.inFlight.delete(work);
    work.then(forget, forget);
    return work;
  }

  private async putPartNow(
    uploadId: string,
    partNumberText: string,
    body: NodeJS.ReadableStream,
    options: PutPartOptions,
  ): Promise<{ etag: string; size: number }> {
    const record = await this.upload(uploadId);
    const partNumber = checkPartNumber(partNumberText, record.plan.partCount);
    const { partSize } = record.plan;
    if (options.contentLength !== undefined && options.contentLength > partSize) {
      throw tooLarge(partNumber, partSize, options.contentLength);
    }
    let expectedMd5: string | undefined;
    if (options.contentMd5 !== undefined) {
      if (!MD5_B64.test(options.contentMd5)) {
        throw new ObjectStoreError(
          'InvalidDigest',
          `The Content-MD5 you specified for part ${partNumber} is not valid: it must be the base64 of a 16-byte MD5 digest`,
          { partNumber },
        );
      }
      expectedMd5 = Buffer.from(options.contentMd5, 'base64').toString('hex');
    }

    const meter = new PartMeter(partSize, partNumber);
    const tmp = await this.tmpPath(`part-${partNumber}`);
    try {
      await streamBodyTo(body, meter, tmp);
      if (options.contentLength !== undefined && meter.size !== options.contentLength) {
        throw new ObjectStoreError(
          'IncompleteBody',
          `Part ${partNumber}: received ${meter.size} bytes, Content-Length said ${options.contentLength}`,
          { partNumber },
        );
      }
      const md5 = meter.md5();
      if (expectedMd5 !== undefined && expectedMd5 !== md5) {
        throw new ObjectStoreError(
          'BadDigest',
          `The Content-MD5 you specified did not match what we received for part ${partNumber}`,
          { partNumber },
        );
      }
      await this.withLock(uploadId, async () => {
        // The upload may have been aborted or completed while the bytes were arriving.
        await this.upload(uploadId);
        const dir = this.uploadDir(uploadId);
        const md5Tmp = await this.tmpPath(`md5-${partNumber}`);
        await fsp.writeFile(md5Tmp, md5);
        // An acknowledged part survives a crash: bytes and digest reach the disk before their names do.
        await syncFile(tmp);
        await syncFile(md5Tmp);
        // Digest first, then the bytes: a crash between the two renames leaves the new digest
        // beside the old bytes, so a complete naming the old ETag is refused instead of assembling
        // bytes that were never acknowledged. (Readers take this lock, so none sees the gap.)
        await fsp.rename(md5Tmp, path.join(dir, `${partNumber}.md5`));
        await fsp.rename(tmp, path.join(dir, `${partNumber}.part`));
        await syncFile(dir);
      });
      return { etag: `"${md5}"`, size: meter.size };
    } catch (error) {
      await fsp.rm(tmp, { force: true });
      throw asStoreError(error, partNumber);
    }
  }

  async listParts(uploadId: string): Promise<UploadedPart[]> {
    await this.upload(uploadId);
    return this.withLock(uploadId, () => this.readParts(uploadId));
  }

  async completeMultipartUpload(uploadId: string, parts?: PartSelection[]): Promise<CompletedObject> {
    await this.upload(uploadId);
    return this.withLock(uploadId, async () => {
      const record = await this.upload(uploadId);
      const selected = matchSelection(await this.readParts(uploadId), parts);
      checkPartSizes(selected, record.plan.partSize);

      const dir = this.uploadDir(uploadId);
      const tmp = await this.tmpPath('assembly');
      // Each part was hashed as it arrived, and parts change only under this upload's lock, which
      // this assembly holds: the stored digests are the parts' digests, so the bytes are copied
      // once and not hashed again.
      const digests = selected.map((part) => Buffer.from(part.etag.replace(/"/g, ''), 'hex'));
      let size = 0;
      try {
        async function* concatenate(): AsyncGenerator<Buffer> {
          for (const part of selected) {
            for await (const chunk of createReadStream(path.join(dir, `${part.partNumber}.part`), {
              highWaterMark: 1 << 20,
            })) {
              size += (chunk as Buffer).length;
              yield chunk as Buffer;
            }
          }
        }
        await pipeline(concatenate(), createWriteStream(tmp, { flags: 'wx' }));
        await syncFile(tmp);
        const target = this.objectPath(record.key);
        await fsp.mkdir(path.dirname(target), { recursive: true });
        await fsp.rename(tmp, target);
        await syncFolders(path.dirname(target));
      } catch (error) {
        await fsp.rm(tmp, { force: true });
        throw asStoreError(error);
      }
      this.uploads.delete(uploadId);
      await fsp.rm(dir, { recursive: true, force: true, maxRetries: 3 });
      const etag = `"${createHash('md5').update(Buffer.concat(digests)).digest('hex')}-${digests.length}"`;
      return { key: record.key, size, etag };
    });
  }

  async abortMultipartUpload(uploadId: string): Promise<void> {
    await this.upload(uploadId);
    await this.withLock(uploadId, async () => {
      await this.upload(uploadId);
      this.uploads.delete(uploadId);
      await fsp.rm(this.uploadDir(uploadId), { recursive: true, force: true, maxRetries: 3 });
    });
  }

  /** Resolves when no part PUT is streaming; tests use it to look at the disk afterwards. */
  async whenIdle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  get partsInFlight(): number {
    return this.inFlight.size;
  }

  // ---- objects ---------------------------------------------------------------------------------

  /** Where an object's bytes are (or would be) on disk; for engines that want a file path. */
  objectPath(key: string): string {
    checkKey(key);
    return path.join(this.dataDir, 'objects', ...key.split('/'));
  }

  async putObject(
    key: string,
    source: NodeJS.ReadableStream | string,
    options: PutObjectOptions = {},
  ): Promise<{ size: number }> {
    const target = this.objectPath(key);
    await this.init();
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
    const tmp = await this.tmpPath('object');
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
    const root = path.join(this.dataDir, 'objects');
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

  // ---- internals -------------------------------------------------------------------------------

  private init(): Promise<void> {
    this.ready ??= (async () => {
      for (const dir of ['objects', 'multipart', 'tmp']) {
        await fsp.mkdir(path.join(this.dataDir, dir), { recursive: true });
      }
    })();
    return this.ready;
  }

  private uploadDir(uploadId: string): string {
    return path.join(this.dataDir, 'multipart', uploadId);
  }

  private async tmpPath(label: string): Promise<string> {
    await this.init();
    return path.join(this.dataDir, 'tmp', `${label}-${randomBytes(8).toString('hex')}.tmp`);
  }

  /** The upload's record, from memory or from disk (an upload outlives the process that opened it). */
  private async upload(uploadId: string): Promise<UploadRecord> {
    if (typeof uploadId !== 'string' || !UPLOAD_ID.test(uploadId)) throw noSuchUpload(uploadId);
    const cached = this.uploads.get(uploadId);
    if (cached !== undefined) return cached;
    try {
      const record = JSON.parse(
        await fsp.readFile(path.join(this.uploadDir(uploadId), 'upload.json'), 'utf8'),
      ) as UploadRecord;
      this.uploads.set(uploadId, record);
      return record;
    } catch (error) {
      if (isMissing(error as NodeJS.ErrnoException)) throw noSuchUpload(uploadId);
      throw error;
    }
  }

  private async readParts(uploadId: string): Promise<UploadedPart[]> {
    const dir = this.uploadDir(uploadId);
    const parts: UploadedPart[] = [];
    let names: string[];
    try {
      names = await fsp.readdir(dir);
    } catch (error) {
      if (!isMissing(error as NodeJS.ErrnoException)) throw error;
      // Aborted or completed meanwhile; a read racing the abort may have cached its record again.
      this.uploads.delete(uploadId);
      throw noSuchUpload(uploadId);
    }
    for (const name of names) {
      const match = PART_FILE.exec(name);
      if (match === null) continue;
      const partNumber = Number(match[1]);
      try {
        const [stat, md5] = await Promise.all([
          fsp.stat(path.join(dir, name)),
          fsp.readFile(path.join(dir, `${partNumber}.md5`), 'utf8'),
        ]);
        parts.push({ partNumber, etag: `"${md5.trim()}"`, size: stat.size });
      } catch (error) {
        if (!isMissing(error as NodeJS.ErrnoException)) throw error;
      }
    }
    return parts.sort((a, b) => a.partNumber - b.partNumber);
  }

  /** Runs `task` after every earlier task on the same upload has settled. */
  private async withLock<T>(uploadId: string, task: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(uploadId) ?? Promise.resolve();
    const run = previous.then(task, task);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.locks.set(uploadId, settled);
    try {
      return await run;
    } finally {
      if (this.locks.get(uploadId) === settled) this.locks.delete(uploadId);
    }
  }

  private async writeFileAtomic(file: string, content: string): Promise<void> {
    const tmp = await this.tmpPath('meta');
    await fsp.writeFile(tmp, content);
    await syncFile(tmp);
    await fsp.rename(tmp, file);
    await syncFolders(path.dirname(file));
  }

  private async pruneEmptyDirs(from: string): Promise<void> {
    const root = path.join(this.dataDir, 'objects');
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

/**
 * Like pipeline(body, meter, file), except that a failure never destroys `body`: it is the HTTP
 * request, and destroying it would take the socket with it before the error can be answered.
 * The caller drains or closes it after answering.
 */
async function streamBodyTo(body: NodeJS.ReadableStream, meter: PartMeter, file: string): Promise<void> {
  const written = pipeline(meter, createWriteStream(file, { flags: 'wx' }));
  const stopWatching = finished(body as Readable, (error) => {
    if (error) meter.destroy(error);
  });
  body.pipe(meter);
  try {
    await written;
  } finally {
    body.unpipe(meter);
    stopWatching();
  }
}

/** Counts, hashes and caps the bytes of one part as they stream past. */
class PartMeter extends Transform {
  size = 0;
  private readonly hash = createHash('md5');

  constructor(
    private readonly limit: number,
    private readonly partNumber: number,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.limit) {
      callback(tooLarge(this.partNumber, this.limit));
      return;
    }
    this.hash.update(chunk);
    callback(null, chunk);
  }

  md5(): string {
    return this.hash.digest('hex');
  }
}

/** Part numbers arrive as path text: only a plain decimal between 1 and the plan's count passes. */
function checkPartNumber(text: string, partCount: number): number {
  const value = PART_NUMBER_TEXT.test(text) ? Number(text) : NaN;
  if (!(value >= 1 && value <= partCount)) {
    const shown = text.length > 40 ? `${text.slice(0, 40)}...` : text;
    throw new ObjectStoreError(
      'InvalidArgument',
      `Part number ${JSON.stringify(shown)} is out of range: this upload has parts 1 to ${partCount}`,
      { partNumber: Number.isSafeInteger(value) ? value : undefined },
    );
  }
  return value;
}

function tooLarge(partNumber: number, partSize: number, declared?: number): ObjectStoreError {
  const size = declared === undefined ? 'is larger than' : `is ${declared} bytes, larger than`;
  return new ObjectStoreError(
    'EntityTooLarge',
    `Part ${partNumber} ${size} the upload's part size of ${partSize} bytes`,
    { partNumber },
  );
}

function noSuchUpload(uploadId: string): ObjectStoreError {
  const shown = typeof uploadId === 'string' && uploadId.length <= 128 ? uploadId : '(invalid id)';
  return new ObjectStoreError(
    'NoSuchUpload',
    `The specified multipart upload does not exist (upload id ${JSON.stringify(shown)}): it may have been aborted or completed`,
  );
}

function noSuchKey(key: string): ObjectStoreError {
  return new ObjectStoreError('NoSuchKey', `The specified key does not exist: ${JSON.stringify(key)}`);
}

/** The folder an object was put in and its parent: both may be new, and a name lives in its parent. */
async function syncFolders(folder: string): Promise<void> {
  await syncFile(folder);
  await syncFile(path.dirname(folder));
}

/** fsync of a file, or of a folder (for the names in it). */
async function syncFile(file: string): Promise<void> {
  const handle = await fsp.open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function isMissing(error: NodeJS.ErrnoException): boolean {
  return error?.code === 'ENOENT';
}

/** Stream and file-system failures while a part arrives mean the body did not arrive whole. */
function asStoreError(error: unknown, partNumber?: number): ObjectStoreError {
  if (error instanceof ObjectStoreError) return error;
  if ((error as NodeJS.ErrnoException | undefined)?.code === 'ENOSPC') {
    return new ObjectStoreError(
      'InsufficientStorage',
      'The storage disk is full: nothing was stored. Try again later.',
      {
        partNumber,
        cause: error,
      },
    );
  }
  if (partNumber !== undefined) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ABORT_ERR') {
      return new ObjectStoreError(
        'IncompleteBody',
        `The body of part ${partNumber} ended before it was complete`,
        {
          partNumber,
          cause: error,
        },
      );
    }
  }
  return new ObjectStoreError(
    'InternalError',
    `Storage failed: ${(error as Error)?.message ?? String(error)}`,
    {
      partNumber,
      cause: error,
    },
  );
}
