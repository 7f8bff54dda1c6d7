import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import * as fsp from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
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
import { SlotWriter, writeFully } from './slot-writer.js';

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

/** `<partNumber>.json` in the upload's folder: a part that arrived whole. */
interface PartRecord {
  /** MD5 hex of the part's bytes: the ETag without quotes. */
  md5: string;
  size: number;
  /** The store instance (process) that wrote the bytes; parts of an earlier one are re-hashed at complete. */
  writer: string;
}

const UPLOAD_ID = /^[A-Za-z0-9_-]{16,128}$/;
const PART_NUMBER_TEXT = /^[1-9]\d{0,4}$/;
const PART_RECORD = /^([1-9]\d{0,4})\.json$/;
/** Part files of the layout before the data file (see adoptOlderLayout). */
const OLDER_PART_FILE = /^([1-9]\d{0,4})\.part$/;
const MD5_B64 = /^[A-Za-z0-9+/]{22}==$/;
const DATA_FILE = 'data';
const COPY_CHUNK = 1 << 20;

/** A slot is written in place by the PUT in `SlotWriter`, or was claimed for good ('taken'). */
type SlotClaim = SlotWriter | 'taken';

/**
 * Layout under dataDir:
 *   objects/<key>                                  finished objects
 *   multipart/<uploadId>/upload.json               key and plan
 *   multipart/<uploadId>/data                      the object being assembled: part n at offset
 *                                                  (n - 1) * partSize, the file sized to the plan at open
 *   multipart/<uploadId>/<partNumber>.json         a part that arrived whole: MD5, size, writer
 *   tmp/                                           bytes in flight, renamed into place when whole
 * tmp/ sits on the same file system as the rest, so every rename is atomic.
 *
 * A part's first PUT streams straight into its slot, hashed on the way (one pass, no copy); a
 * re-sent part streams to tmp/ first, so a failed resend leaves the earlier bytes alone, and is
 * copied into the slot once whole. Nothing is flushed per part: a completing upload flushes the
 * data file once and renames it to its key (no copy when the parts are 1..k). A part's 200 thus
 * promises what the operating system holds: it survives the mock being killed, not the machine
 * losing power before the complete. So parts written by an earlier process are hashed again at
 * complete, and one whose bytes no longer match is refused by number (see docs/persistence.md).
 */
export class EmbeddedObjectStore implements ObjectStore {
  readonly dataDir: string;
  readonly storageUrl: string;
  private readonly signer: PartUrlSigner;
  private readonly clock: () => Date;
  private readonly uploads = new Map<string, UploadRecord>();
  /** Uploads being read from disk (and moved from an older layout), so that happens once. */
  private readonly loading = new Map<string, Promise<UploadRecord>>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Per upload, the slots this process writes in place or has claimed: a claimed slot is never written in place again. */
  private readonly slots = new Map<string, Map<number, SlotClaim>>();
  /** Tells this process's parts from those of an earlier one (whose unflushed bytes a power loss may have taken). */
  private readonly writerId = randomBytes(8).toString('hex');
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
    try {
      // Sized once (sparse where the file system allows): parts land at their offsets, and the
      // complete renames this file instead of copying the parts into a new one.
      const data = await fsp.open(path.join(dir, DATA_FILE), 'wx');
      try {
        await data.truncate(plan.totalSize);
        await data.sync();
      } finally {
        await data.close();
      }
      await this.writeFileAtomic(path.join(dir, 'upload.json'), JSON.stringify(record));
    } catch (error) {
      await fsp.rm(dir, { recursive: true, force: true });
      throw asStoreError(error);
    }
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
   * Streams one part into its slot and answers its quoted MD5 ETag. A part replaces any earlier
   * part with the same number; a body that ends early, is too large or fails its Content-MD5 is
   * not recorded (and a failed resend leaves the earlier part as it was).
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
    const checkArrived = (meter: PartMeter): string => {
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
      return md5;
    };

    const recorded = await exists(this.partRecordPath(uploadId, partNumber));
    const data = await fsp.open(this.dataPath(uploadId), 'r+').catch((error: NodeJS.ErrnoException) => {
      throw isMissing(error) ? noSuchUpload(uploadId) : asStoreError(error, partNumber);
    });
    // Decided without an await between the look and the claim, so two PUTs never share a slot.
    const slots = this.slotsOf(uploadId);
    if (!recorded && !slots.has(partNumber)) {
      const writer = new SlotWriter(data, partOffset(record.plan, partNumber));
      slots.set(partNumber, writer);
      return this.writeInPlace(uploadId, partNumber, record.plan, writer, data, body, checkArrived);
    }
    await data.close();
    return this.writeAndReplace(uploadId, partNumber, body, checkArrived);
  }

  /** A part's first PUT: hashed and written at its offset in one pass. */
  private async writeInPlace(
    uploadId: string,
    partNumber: number,
    plan: MultipartPlan,
    writer: SlotWriter,
    data: FileHandle,
    body: NodeJS.ReadableStream,
    checkArrived: (meter: PartMeter) => string,
  ): Promise<{ etag: string; size: number }> {
    const slots = this.slotsOf(uploadId);
    const meter = new PartMeter(plan.partSize, partNumber);
    let stored = false;
    try {
      await streamBodyTo(body, meter, writer);
      const md5 = checkArrived(meter);
      await this.withLock(uploadId, async () => {
        // A complete, an abort or a resend of this part came first: these bytes are not the part.
        if (writer.stopReason !== undefined) throw writer.stopReason;
        await this.upload(uploadId);
        await this.writePartRecord(uploadId, partNumber, { md5, size: meter.size, writer: this.writerId });
      });
      stored = true;
      return { etag: `"${md5}"`, size: meter.size };
    } catch (error) {
      throw asStoreError(writer.stopReason ?? error, partNumber);
    } finally {
      // No write of this PUT may land after the slot is given to another one.
      await writer.stop(new Error('finished'));
      await data.close();
      if (slots.get(partNumber) === writer) {
        if (stored) slots.set(partNumber, 'taken');
        else slots.delete(partNumber);
      }
    }
  }

  /**
   * A resend (or a PUT racing the first one): the body goes to tmp/ first, so a failure leaves the
   * earlier part alone, and is copied into the slot under the upload's lock once whole.
   */
  private async writeAndReplace(
    uploadId: string,
    partNumber: number,
    body: NodeJS.ReadableStream,
    checkArrived: (meter: PartMeter) => string,
  ): Promise<{ etag: string; size: number }> {
    const record = await this.upload(uploadId);
    const meter = new PartMeter(record.plan.partSize, partNumber);
    const tmp = await this.tmpPath(`part-${partNumber}`);
    try {
      await streamBodyTo(body, meter, createWriteStream(tmp, { flags: 'wx' }));
      const md5 = checkArrived(meter);
      await this.withLock(uploadId, async () => {
        await this.upload(uploadId);
        const slots = this.slotsOf(uploadId);
        const earlier = slots.get(partNumber);
        slots.set(partNumber, 'taken');
        if (earlier instanceof SlotWriter) await earlier.stop(replaced(partNumber));
        // Record gone before the bytes change: a crash in between leaves the part missing, not wrong.
        await fsp.rm(this.partRecordPath(uploadId, partNumber), { force: true });
        await copyIntoSlot(tmp, this.dataPath(uploadId), partOffset(record.plan, partNumber));
        await this.writePartRecord(uploadId, partNumber, { md5, size: meter.size, writer: this.writerId });
      });
      return { etag: `"${md5}"`, size: meter.size };
    } catch (error) {
      throw asStoreError(error, partNumber);
    } finally {
      await fsp.rm(tmp, { force: true });
    }
  }

  async listParts(uploadId: string): Promise<UploadedPart[]> {
    await this.upload(uploadId);
    return this.withLock(uploadId, async () =>
      (await this.readParts(uploadId)).map(({ partNumber, etag, size }) => ({ partNumber, etag, size })),
    );
  }

  async completeMultipartUpload(uploadId: string, parts?: PartSelection[]): Promise<CompletedObject> {
    await this.upload(uploadId);
    return this.withLock(uploadId, async () => {
      const record = await this.upload(uploadId);
      const arrived = await this.readParts(uploadId);
      const selected = matchSelection(arrived, parts) as StoredPart[];
      checkPartSizes(selected, record.plan.partSize);
      await this.verifyInherited(uploadId, record.plan, selected);

      // Nothing may be written into the data file once it is (or is copied into) the object.
      const slots = this.slotsOf(uploadId);
      for (const claim of slots.values())
        if (claim instanceof SlotWriter) await claim.stop(noSuchUpload(uploadId));

      const size = selected.reduce((sum, part) => sum + part.size, 0);
      const target = this.objectPath(record.key);
      const contiguous =
        selected.every((part, index) => part.partNumber === index + 1) &&
        arrived.every((part) => part.partNumber <= selected.length);
      const data = this.dataPath(uploadId);
      const tmp = contiguous ? undefined : await this.tmpPath('assembly');
      try {
        if (tmp === undefined) {
          // Parts 1..k, nothing after them: the data file cut to their end is the object.
          const handle = await fsp.open(data, 'r+');
          try {
            await handle.truncate(size);
            await handle.sync();
          } finally {
            await handle.close();
          }
        } else {
          await copyParts(data, record.plan, selected, tmp);
          await syncFile(tmp);
        }
        await fsp.mkdir(path.dirname(target), { recursive: true });
        await fsp.rename(tmp ?? data, target);
        await syncFolders(path.dirname(target));
      } catch (error) {
        if (tmp !== undefined) await fsp.rm(tmp, { force: true });
        throw asStoreError(error);
      }
      this.forgetUpload(uploadId);
      await fsp.rm(this.uploadDir(uploadId), { recursive: true, force: true, maxRetries: 3 });
      const digests = selected.map((part) => Buffer.from(unquote(part.etag), 'hex'));
      const etag = `"${createHash('md5').update(Buffer.concat(digests)).digest('hex')}-${digests.length}"`;
      return { key: record.key, size, etag };
    });
  }

  async abortMultipartUpload(uploadId: string): Promise<void> {
    await this.upload(uploadId);
    await this.withLock(uploadId, async () => {
      await this.upload(uploadId);
      for (const claim of this.slotsOf(uploadId).values())
        if (claim instanceof SlotWriter) await claim.stop(noSuchUpload(uploadId));
      this.forgetUpload(uploadId);
      await fsp.rm(this.uploadDir(uploadId), { recursive: true, force: true, maxRetries: 3 });
    });
  }

  /**
   * Parts written by an earlier process were never flushed: a power loss may have taken their
   * bytes though their record stayed. They are hashed again; one that no longer matches is
   * forgotten and refused by number, so the client sends it again instead of getting a wrong file.
   */
  private async verifyInherited(
    uploadId: string,
    plan: MultipartPlan,
    selected: readonly StoredPart[],
  ): Promise<void> {
    for (const part of selected) {
      if (part.writer === this.writerId) continue;
      const md5 = await hashRange(this.dataPath(uploadId), partOffset(plan, part.partNumber), part.size);
      if (md5 === unquote(part.etag)) continue;
      await fsp.rm(this.partRecordPath(uploadId, part.partNumber), { force: true });
      throw new ObjectStoreError(
        'InvalidPart',
        `Part ${part.partNumber} was lost: the server stopped before the upload was completed and the part's bytes no longer match its ETag ${part.etag}. PUT part ${part.partNumber} again, then complete.`,
        { partNumber: part.partNumber },
      );
    }
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
    let loading = this.loading.get(uploadId);
    if (loading === undefined) {
      loading = this.loadUpload(uploadId);
      this.loading.set(uploadId, loading);
      const done = () => this.loading.delete(uploadId);
      loading.then(done, done);
    }
    return loading;
  }

  private async loadUpload(uploadId: string): Promise<UploadRecord> {
    try {
      const record = JSON.parse(
        await fsp.readFile(path.join(this.uploadDir(uploadId), 'upload.json'), 'utf8'),
      ) as UploadRecord;
      await this.adoptOlderLayout(record);
      this.uploads.set(uploadId, record);
      return record;
    } catch (error) {
      if (isMissing(error as NodeJS.ErrnoException)) throw noSuchUpload(uploadId);
      throw error;
    }
  }

  /**
   * An upload opened by an earlier version kept each part in its own file (`<n>.part` beside its
   * MD5 in `<n>.md5`). It moves to the data-file layout once, on first use: the parts are copied to
   * their offsets in a new data file, whose rename is the commit point (a crash before it leaves
   * the old files, and the move starts over). Its parts count as an earlier process's: re-hashed at
   * complete.
   */
  private async adoptOlderLayout(record: UploadRecord): Promise<void> {
    const { uploadId, plan } = record;
    const dir = this.uploadDir(uploadId);
    if (await exists(this.dataPath(uploadId))) return;
    const names = await fsp.readdir(dir);
    // Records without a data file: a complete renamed it to the object and stopped before the
    // folder was removed. Nothing to adopt; the image's next complete finds the object whole.
    if (!names.some((name) => OLDER_PART_FILE.test(name)) && names.some((name) => PART_RECORD.test(name)))
      return;
    const tmp = await this.tmpPath('adopted');
    const olderFiles: string[] = [];
    try {
      const created = await fsp.open(tmp, 'wx');
      await created.truncate(plan.totalSize);
      await created.close();
      for (const name of names) {
        const match = OLDER_PART_FILE.exec(name);
        if (match === null) continue;
        const partNumber = Number(match[1]);
        const md5File = path.join(dir, `${partNumber}.md5`);
        olderFiles.push(path.join(dir, name), md5File);
        const md5 = (await fsp.readFile(md5File, 'utf8').catch(() => '')).trim();
        if (partNumber > plan.partCount || !/^[0-9a-f]{32}$/.test(md5)) continue;
        const { size } = await fsp.stat(path.join(dir, name));
        if (size > plan.partSize) continue;
        await copyIntoSlot(path.join(dir, name), tmp, partOffset(plan, partNumber));
        await this.writePartRecord(uploadId, partNumber, { md5, size, writer: 'older-layout' });
      }
      await syncFile(tmp);
      await fsp.rename(tmp, this.dataPath(uploadId));
      await syncFile(dir);
    } catch (error) {
      await fsp.rm(tmp, { force: true });
      throw error;
    }
    for (const file of olderFiles) await fsp.rm(file, { force: true });
  }

  private async readParts(uploadId: string): Promise<StoredPart[]> {
    const dir = this.uploadDir(uploadId);
    const parts: StoredPart[] = [];
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
      const match = PART_RECORD.exec(name);
      if (match === null) continue;
      const partNumber = Number(match[1]);
      try {
        const stored = JSON.parse(await fsp.readFile(path.join(dir, name), 'utf8')) as PartRecord;
        parts.push({ partNumber, etag: `"${stored.md5}"`, size: stored.size, writer: stored.writer });
      } catch (error) {
        // Removed meanwhile, or cut short by a power loss (it was never flushed): not a part.
        if (!isMissing(error as NodeJS.ErrnoException) && !(error instanceof SyntaxError)) throw error;
      }
    }
    return parts.sort((a, b) => a.partNumber - b.partNumber);
  }

  private dataPath(uploadId: string): string {
    return path.join(this.uploadDir(uploadId), DATA_FILE);
  }

  private partRecordPath(uploadId: string, partNumber: number): string {
    return path.join(this.uploadDir(uploadId), `${partNumber}.json`);
  }

  private slotsOf(uploadId: string): Map<number, SlotClaim> {
    let slots = this.slots.get(uploadId);
    if (slots === undefined) {
      slots = new Map();
      this.slots.set(uploadId, slots);
    }
    return slots;
  }

  private forgetUpload(uploadId: string): void {
    this.uploads.delete(uploadId);
    this.slots.delete(uploadId);
  }

  /** Renamed into place, not flushed: the complete flushes what it assembles (see the class comment). */
  private async writePartRecord(uploadId: string, partNumber: number, record: PartRecord): Promise<void> {
    const tmp = await this.tmpPath(`record-${partNumber}`);
    await fsp.writeFile(tmp, JSON.stringify(record));
    await fsp.rename(tmp, this.partRecordPath(uploadId, partNumber));
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
async function streamBodyTo(
  body: NodeJS.ReadableStream,
  meter: PartMeter,
  sink: NodeJS.WritableStream,
): Promise<void> {
  const written = pipeline(meter, sink);
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

/** A part as recorded, with the process that wrote its bytes. */
interface StoredPart extends UploadedPart {
  writer: string;
}

function partOffset(plan: MultipartPlan, partNumber: number): number {
  return (partNumber - 1) * plan.partSize;
}

function unquote(etag: string): string {
  return etag.replace(/"/g, '');
}

async function exists(file: string): Promise<boolean> {
  try {
    await fsp.access(file);
    return true;
  } catch {
    return false;
  }
}

/** A resent part, whole in `source`, into its slot of the data file. */
async function copyIntoSlot(source: string, data: string, offset: number): Promise<void> {
  const target = await fsp.open(data, 'r+');
  try {
    for await (const chunk of createReadStream(source, { highWaterMark: COPY_CHUNK })) {
      const at = offset;
      offset += (chunk as Buffer).length;
      await writeFully(target, [chunk as Buffer], at);
    }
  } finally {
    await target.close();
  }
}

/** A selection other than parts 1..k: the chosen slots copied, in order, into a new file. */
async function copyParts(
  data: string,
  plan: MultipartPlan,
  parts: readonly UploadedPart[],
  target: string,
): Promise<void> {
  async function* slots(): AsyncGenerator<Buffer> {
    for (const part of parts) {
      if (part.size === 0) continue;
      const start = partOffset(plan, part.partNumber);
      yield* createReadStream(data, { start, end: start + part.size - 1, highWaterMark: COPY_CHUNK });
    }
  }
  await pipeline(slots(), createWriteStream(target, { flags: 'wx' }));
}

async function hashRange(file: string, start: number, size: number): Promise<string> {
  const hash = createHash('md5');
  if (size > 0) {
    for await (const chunk of createReadStream(file, {
      start,
      end: start + size - 1,
      highWaterMark: COPY_CHUNK,
    }))
      hash.update(chunk as Buffer);
  }
  return hash.digest('hex');
}

function replaced(partNumber: number): ObjectStoreError {
  return new ObjectStoreError(
    'OperationAborted',
    `Part ${partNumber} was sent again and the other PUT finished first: this body was not stored. Send the part once, or again if you need these bytes.`,
    { partNumber },
  );
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
