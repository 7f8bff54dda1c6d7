import { createHash, randomBytes } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import * as fsp from 'node:fs/promises';
import path from 'node:path';

import {
  type CompletedObject,
  type MultipartPlan,
  ObjectStoreError,
  type PartReceiver,
  type PartRequestQuery,
  type PartSelection,
  type PutPartOptions,
  type UploadedPart,
} from '../../domain/object-store.js';
import {
  checkObjectKey as checkKey,
  checkPartSizes,
  matchSelection,
  validateExpiry,
  unquoteEtag,
  validatePlan,
} from './s3-rules.js';
import { storeLayout, type StoreLayout } from '../data-layout.js';
import { assembleUpload, byteRange, restoreDataFile } from './assemble-upload.js';
import { FolderLocks } from './folder-lock.js';
import { type PartRecord, type StoredPart, type UploadRecord, UploadRecords } from './upload-records.js';
import { md5OfRange } from './md5-thread.js';
import { partOffset, receivePart } from './part-bytes.js';
import { PartUrlSigner } from './part-url-signer.js';
import { SlotWriter } from './slot-writer.js';
import {
  asStoreError,
  checkPartNumber,
  isMissing,
  noSuchUpload,
  replaced,
  tooLarge,
} from './store-errors.js';

export interface EmbeddedObjectStoreOptions {
  /** The store's folder; what lies under it is storeLayout's (stores/data-layout.ts). */
  dataDir: string;
  /** Absolute base URL the storage router is reachable at, e.g. `http://127.0.0.1:8000/storage`. */
  storageUrl: string;
  /** HMAC key for part URLs; random per process when omitted. */
  signingSecret?: string | Buffer;
  clock?: () => Date;
}

const MD5_B64 = /^[A-Za-z0-9+/]{22}==$/;

/** A part PUT's body received into `handle` at `offset` (part-bytes.ts receivePart); `track` is told its writer. */
type ReceivePart = (
  handle: FileHandle,
  offset: number,
  track?: (writer: SlotWriter) => void,
) => Promise<Omit<PartRecord, 'id'>>;

/**
 * The embedded store's resumable uploads, which embedded-store.ts extends with whole objects
 * (folders in storeLayout, stores/data-layout.ts; made on first use): each
 * upload's data file is sized to the plan when it opens, part n lands at offset (n - 1) * partSize.
 *
 * A part's first PUT claims its slot on disk and streams straight into it, hashed on the way (one
 * pass, no copy); a part sent again streams to a file of its own, so a failed resend leaves the
 * earlier bytes alone and no two PUTs ever write one place. Each part's bytes are flushed (one
 * fdatasync) before its 200: acknowledged means durable, as for every other write the mock
 * answers. A completing upload renames the data file to its key (no copy when the parts are 1..k,
 * all in their slots). Parts written by another process are still hashed again at complete (a folder
 * restored from elsewhere, another host's cache on a network file system), and one whose bytes no
 * longer match is refused by number (see docs/persistence.md).
 *
 * Several processes may serve one upload on a shared folder (README.md): every answer is read
 * from disk (upload-records.ts), and recording a part, completing and aborting hold the upload's
 * lock file (folder-lock.ts), not only a lock in this process's memory.
 */
export class EmbeddedMultipartUploads implements PartReceiver {
  readonly dataDir: string;
  protected readonly layout: StoreLayout;
  private readonly storageUrl: string;
  private readonly signer: PartUrlSigner;
  private readonly clock: () => Date;
  private readonly records: UploadRecords;
  private made: Promise<void> | undefined;
  private readonly locks: FolderLocks;
  private readonly inFlight = new Set<Promise<unknown>>();
  /** This process's PUTs writing a slot in place, by claim: a complete or an abort here stops its upload's. */
  private readonly writers = new Map<string, { uploadId: string; writer: SlotWriter }>();
  /** Tells this process's parts from those of another one (whose unflushed bytes a power loss may have taken). */
  private readonly writerId = randomBytes(8).toString('hex');

  constructor(options: EmbeddedObjectStoreOptions) {
    this.dataDir = path.resolve(options.dataDir);
    this.layout = storeLayout(this.dataDir);
    this.storageUrl = new URL(options.storageUrl).toString().replace(/\/+$/, '');
    this.signer = new PartUrlSigner(options.signingSecret);
    this.clock = options.clock ?? (() => new Date());
    this.records = new UploadRecords(this.layout, (label) => this.stagingFile(label));
    this.locks = new FolderLocks();
  }

  protected ready(): Promise<void> {
    this.made ??= (async () => {
      for (const dir of this.layout.folders) await fsp.mkdir(dir, { recursive: true });
    })();
    return this.made;
  }

  /** A fresh name in the staging folder, on the same file system as the objects: renames are atomic. */
  protected async stagingFile(label: string): Promise<string> {
    await this.ready();
    return path.join(this.layout.tmp, `${label}-${randomBytes(8).toString('hex')}.tmp`);
  }

  async createMultipartUpload(key: string, plan: MultipartPlan): Promise<{ uploadId: string }> {
    checkKey(key);
    validatePlan(plan);
    await this.ready();
    const uploadId = randomBytes(24).toString('base64url');
    const record: UploadRecord = {
      uploadId,
      key,
      plan: { totalSize: plan.totalSize, partSize: plan.partSize, partCount: plan.partCount },
      createdAt: this.clock().toISOString(),
    };
    await this.records.create(record);
    return { uploadId };
  }

  async presignPart(uploadId: string, partNumber: number, expiresInSeconds: number): Promise<string> {
    const record = await this.records.get(uploadId);
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
    const record = await this.records.get(uploadId);
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
    const request = { partNumber, partSize, contentLength: options.contentLength, expectedMd5 };
    const receive: ReceivePart = (handle, offset, track) =>
      receivePart(body, handle, offset, request, track).then((bytes) => ({
        ...bytes,
        writer: this.writerId,
      }));

    // What this PUT replaces: if another PUT of the part is recorded while this one streams, the
    // one that finished first is kept.
    const earlier = await this.records.readPart(uploadId, partNumber);
    const id = randomBytes(8).toString('hex');
    if (earlier === undefined && (await this.records.claimSlot(uploadId, partNumber, id)))
      return this.writeInPlace(uploadId, partNumber, partOffset(record.plan, partNumber), id, receive);
    return this.writeOwnFile(uploadId, partNumber, id, earlier?.id, receive);
  }

  /** A part's first PUT: hashed and written at its offset in the data file in one pass. */
  private async writeInPlace(
    uploadId: string,
    partNumber: number,
    offset: number,
    id: string,
    receive: ReceivePart,
  ): Promise<{ etag: string; size: number }> {
    const finished = new Error('finished');
    let writer: SlotWriter | undefined;
    let part: Omit<PartRecord, 'id'>;
    try {
      const data = await fsp.open(this.layout.uploadData(uploadId), 'r+').catch((error: unknown) => {
        throw isMissing(error) ? noSuchUpload(uploadId) : error;
      });
      try {
        part = await receive(data, offset, (slot) => {
          writer = slot;
          this.writers.set(id, { uploadId, writer: slot });
        });
      } finally {
        // No write of this PUT lands after this; closed before the part is recorded, so another
        // instance reading the slot on a network file system sees its bytes (close-to-open).
        await writer?.stop(finished);
        await data.close();
        this.writers.delete(id);
      }
    } catch (error) {
      // A complete or an abort here stopped the writing: that is the answer, not the stream's error.
      const stoppedBy = writer?.stopReason;
      throw asStoreError(stoppedBy !== undefined && stoppedBy !== finished ? stoppedBy : error, partNumber);
    } finally {
      await this.records.releaseSlot(uploadId, partNumber, id);
    }
    // Stopped by a complete or an abort after the last byte: these bytes are not the part.
    if (writer?.stopReason !== finished) throw asStoreError(writer?.stopReason, partNumber);
    return this.record(uploadId, partNumber, undefined, { ...part, id });
  }

  /**
   * A resend (or a PUT racing the first one): the body goes to tmp/ first, so a failure leaves the
   * earlier part alone, and into a file of its own in the upload's folder once whole.
   */
  private async writeOwnFile(
    uploadId: string,
    partNumber: number,
    id: string,
    earlierId: string | undefined,
    receive: ReceivePart,
  ): Promise<{ etag: string; size: number }> {
    const tmp = await this.stagingFile(`part-${partNumber}`);
    try {
      const handle = await fsp.open(tmp, 'wx+'); // read back by the hashing thread
      let part: Omit<PartRecord, 'id'>;
      try {
        part = await receive(handle, 0);
      } finally {
        await handle.close();
      }
      const file = this.layout.partFile(uploadId, partNumber, id);
      return await this.record(
        uploadId,
        partNumber,
        earlierId,
        { ...part, id, file: path.basename(file) },
        () => fsp.rename(tmp, file),
      );
    } catch (error) {
      throw asStoreError(error, partNumber);
    } finally {
      await fsp.rm(tmp, { force: true });
    }
  }

  /**
   * Records a part under the upload's lock, unless another PUT of it was recorded since this one
   * started (that one finished first and is kept: OperationAborted). A part's earlier own file goes.
   */
  private async record(
    uploadId: string,
    partNumber: number,
    earlierId: string | undefined,
    part: PartRecord,
    place?: () => Promise<void>,
  ): Promise<{ etag: string; size: number }> {
    await this.lock(uploadId, async () => {
      await this.records.get(uploadId);
      const current = await this.records.readPart(uploadId, partNumber);
      if (current?.id !== earlierId) throw replaced(partNumber);
      await place?.();
      await this.records.writePart(uploadId, partNumber, part);
      if (current?.file !== undefined)
        await fsp.rm(this.records.partFile(uploadId, current.file), { force: true });
    });
    return { etag: `"${part.md5}"`, size: part.size };
  }

  async listParts(uploadId: string): Promise<UploadedPart[]> {
    await this.records.get(uploadId);
    return (await this.records.readParts(uploadId)).map(({ partNumber, etag, size }) => ({
      partNumber,
      etag,
      size,
    }));
  }

  /**
   * Under the upload's lock, so of two completes (in any processes) one assembles the object and
   * the other finds the upload gone: NoSuchUpload, as for any completed upload.
   */
  async completeMultipartUpload(uploadId: string, parts?: PartSelection[]): Promise<CompletedObject> {
    await this.records.get(uploadId);
    return this.lock(uploadId, async () => {
      const record = await this.records.get(uploadId);
      const arrived = await this.records.readParts(uploadId);
      const selected = matchSelection(arrived, parts) as StoredPart[];
      checkPartSizes(selected, record.plan.partSize);
      await restoreDataFile(this.layout, uploadId);
      await this.verifyInherited(uploadId, record.plan, selected);
      const size = await assembleUpload(this.layout, this.records, (label) => this.stagingFile(label), {
        uploadId,
        key: record.key,
        plan: record.plan,
        selected,
        arrived,
        stopOwnWriters: () => this.stopWriters(uploadId),
      });
      await this.records.end(uploadId);
      const digests = selected.map((part) => Buffer.from(unquoteEtag(part.etag), 'hex'));
      const etag = `"${createHash('md5').update(Buffer.concat(digests)).digest('hex')}-${digests.length}"`;
      return { key: record.key, size, etag };
    });
  }

  async abortMultipartUpload(uploadId: string): Promise<void> {
    await this.records.get(uploadId);
    await this.lock(uploadId, async () => {
      await this.records.get(uploadId);
      await this.stopWriters(uploadId);
      await this.records.end(uploadId);
    });
  }

  /**
   * Parts written by another process were never flushed: a power loss may have taken their bytes
   * though their record stayed (or, on a network file system, that process's bytes may not be
   * there yet). They are hashed again; one that no longer matches is
   * forgotten and refused by number, so the client sends it again instead of getting a wrong file.
   */
  private async verifyInherited(
    uploadId: string,
    plan: MultipartPlan,
    selected: readonly StoredPart[],
  ): Promise<void> {
    for (const part of selected) {
      if (part.writer === this.writerId) continue;
      const md5 = await md5OfRange(byteRange(this.layout, this.records, uploadId, plan, part));
      if (md5 === unquoteEtag(part.etag)) continue;
      await this.records.removePart(uploadId, part.partNumber);
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

  /** The upload's lock, held across processes: gone with the upload's folder (NoSuchUpload). */
  private lock<T>(uploadId: string, task: () => Promise<T>): Promise<T> {
    return this.locks.run(uploadId, this.layout.uploadLock(uploadId), task, () => noSuchUpload(uploadId));
  }

  /** Stops this process's PUTs writing into the upload's data file; answers their claims. */
  private async stopWriters(uploadId: string): Promise<ReadonlySet<string>> {
    const stopped = new Set<string>();
    for (const [id, own] of this.writers) {
      if (own.uploadId !== uploadId) continue;
      this.writers.delete(id);
      stopped.add(id);
      await own.writer.stop(noSuchUpload(uploadId));
    }
    return stopped;
  }
}
