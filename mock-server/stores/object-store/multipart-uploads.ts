import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import * as fsp from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';

import {
  checkObjectKey as checkKey,
  checkPartSizes,
  matchSelection,
  type CompletedObject,
  type MultipartPlan,
  ObjectStoreError,
  type PartReceiver,
  type PartRequestQuery,
  type PartSelection,
  type PutPartOptions,
  type UploadedPart,
  validateExpiry,
  unquoteEtag,
  validatePlan,
} from '../../domain/object-store.js';
import type { StoreLayout } from '../data-layout.js';
import { isMissing, syncFile, syncFolders } from './disk.js';
import { KeyedLock } from './keyed-lock.js';
import { type StoredPart, type UploadRecord, UploadRecords } from './upload-records.js';
import { copyIntoSlot, copyParts, hashRange, partOffset, PartMeter, streamBodyTo } from './part-bytes.js';
import { PartUrlSigner } from './part-url-signer.js';
import { SlotWriter } from './slot-writer.js';
import { asStoreError, checkPartNumber, noSuchUpload, replaced, tooLarge } from './store-errors.js';

export interface MultipartUploadsOptions {
  layout: StoreLayout;
  /** Absolute base URL the storage router is reachable at, e.g. `http://127.0.0.1:8000/storage`. */
  storageUrl: string;
  /** HMAC key for part URLs; random per process when omitted. */
  signingSecret?: string | Buffer;
  clock: () => Date;
  /** A fresh path in the store's staging folder (made on first use). */
  stagingFile: (label: string) => Promise<string>;
}

const MD5_B64 = /^[A-Za-z0-9+/]{22}==$/;

/** A slot is written in place by the PUT in `SlotWriter`, or was claimed for good ('taken'). */
type SlotClaim = SlotWriter | 'taken';

/**
 * The embedded store's resumable uploads (folders in storeLayout, stores/data-layout.ts): each
 * upload's data file is sized to the plan when it opens, part n lands at offset (n - 1) * partSize.
 *
 * A part's first PUT streams straight into its slot, hashed on the way (one pass, no copy); a
 * re-sent part streams to tmp/ first, so a failed resend leaves the earlier bytes alone, and is
 * copied into the slot once whole. Nothing is flushed per part: a completing upload flushes the
 * data file once and renames it to its key (no copy when the parts are 1..k). A part's 200 thus
 * promises what the operating system holds: it survives the mock being killed, not the machine
 * losing power before the complete. So parts written by an earlier process are hashed again at
 * complete, and one whose bytes no longer match is refused by number (see docs/persistence.md).
 */
export class EmbeddedMultipartUploads implements PartReceiver {
  private readonly layout: StoreLayout;
  private readonly storageUrl: string;
  private readonly signer: PartUrlSigner;
  private readonly clock: () => Date;
  private readonly stagingFile: (label: string) => Promise<string>;
  private readonly records: UploadRecords;
  private readonly locks = new KeyedLock();
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Per upload, the slots this process writes in place or has claimed: a claimed slot is never written in place again. */
  private readonly slots = new Map<string, Map<number, SlotClaim>>();
  /** Tells this process's parts from those of an earlier one (whose unflushed bytes a power loss may have taken). */
  private readonly writerId = randomBytes(8).toString('hex');

  constructor(options: MultipartUploadsOptions) {
    this.layout = options.layout;
    this.storageUrl = new URL(options.storageUrl).toString().replace(/\/+$/, '');
    this.signer = new PartUrlSigner(options.signingSecret);
    this.clock = options.clock;
    this.stagingFile = options.stagingFile;
    this.records = new UploadRecords(options.layout, options.stagingFile);
  }

  async createMultipartUpload(key: string, plan: MultipartPlan): Promise<{ uploadId: string }> {
    checkKey(key);
    validatePlan(plan);
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

    const recorded = await this.records.hasPart(uploadId, partNumber);
    const data = await fsp
      .open(this.layout.uploadData(uploadId), 'r+')
      .catch((error: NodeJS.ErrnoException) => {
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
      await this.locks.run(uploadId, async () => {
        // A complete, an abort or a resend of this part came first: these bytes are not the part.
        if (writer.stopReason !== undefined) throw writer.stopReason;
        await this.upload(uploadId);
        await this.records.writePart(uploadId, partNumber, { md5, size: meter.size, writer: this.writerId });
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
    const tmp = await this.stagingFile(`part-${partNumber}`);
    try {
      await streamBodyTo(body, meter, createWriteStream(tmp, { flags: 'wx' }));
      const md5 = checkArrived(meter);
      await this.locks.run(uploadId, async () => {
        await this.upload(uploadId);
        const slots = this.slotsOf(uploadId);
        const earlier = slots.get(partNumber);
        slots.set(partNumber, 'taken');
        if (earlier instanceof SlotWriter) await earlier.stop(replaced(partNumber));
        // Record gone before the bytes change: a crash in between leaves the part missing, not wrong.
        await this.records.removePart(uploadId, partNumber);
        await copyIntoSlot(tmp, this.layout.uploadData(uploadId), partOffset(record.plan, partNumber));
        await this.records.writePart(uploadId, partNumber, { md5, size: meter.size, writer: this.writerId });
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
    return this.locks.run(uploadId, async () =>
      (await this.records.readParts(uploadId)).map(({ partNumber, etag, size }) => ({
        partNumber,
        etag,
        size,
      })),
    );
  }

  async completeMultipartUpload(uploadId: string, parts?: PartSelection[]): Promise<CompletedObject> {
    await this.upload(uploadId);
    return this.locks.run(uploadId, async () => {
      const record = await this.upload(uploadId);
      const arrived = await this.records.readParts(uploadId);
      const selected = matchSelection(arrived, parts) as StoredPart[];
      checkPartSizes(selected, record.plan.partSize);
      await this.verifyInherited(uploadId, record.plan, selected);

      // Nothing may be written into the data file once it is (or is copied into) the object.
      const slots = this.slotsOf(uploadId);
      for (const claim of slots.values())
        if (claim instanceof SlotWriter) await claim.stop(noSuchUpload(uploadId));

      const size = selected.reduce((sum, part) => sum + part.size, 0);
      const target = this.layout.objectFile(record.key);
      const contiguous =
        selected.every((part, index) => part.partNumber === index + 1) &&
        arrived.every((part) => part.partNumber <= selected.length);
      const data = this.layout.uploadData(uploadId);
      const tmp = contiguous ? undefined : await this.stagingFile('assembly');
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
      await fsp.rm(this.layout.uploadFolder(uploadId), { recursive: true, force: true, maxRetries: 3 });
      const digests = selected.map((part) => Buffer.from(unquoteEtag(part.etag), 'hex'));
      const etag = `"${createHash('md5').update(Buffer.concat(digests)).digest('hex')}-${digests.length}"`;
      return { key: record.key, size, etag };
    });
  }

  async abortMultipartUpload(uploadId: string): Promise<void> {
    await this.upload(uploadId);
    await this.locks.run(uploadId, async () => {
      await this.upload(uploadId);
      for (const claim of this.slotsOf(uploadId).values())
        if (claim instanceof SlotWriter) await claim.stop(noSuchUpload(uploadId));
      this.forgetUpload(uploadId);
      await fsp.rm(this.layout.uploadFolder(uploadId), { recursive: true, force: true, maxRetries: 3 });
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
      const md5 = await hashRange(
        this.layout.uploadData(uploadId),
        partOffset(plan, part.partNumber),
        part.size,
      );
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

  private upload(uploadId: string): Promise<UploadRecord> {
    return this.records.get(uploadId);
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
    this.records.forget(uploadId);
    this.slots.delete(uploadId);
  }
}
