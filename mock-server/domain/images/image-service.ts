import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  ObjectStoreError,
  type ObjectStore,
  type PartSelection,
} from '../../engines/object-store/object-store.js';
import type { MockClock } from '../clock.js';
import { DomainError, notFound } from '../errors.js';
import { storageCapMessage, type Organization } from '../organizations.js';
import type { MockState } from '../state.js';
import type { ImageRecord } from './image-record.js';
import { planParts } from './upload-plan.js';

export interface ConvertedImage {
  shape: number[];
  width: number;
  height: number;
  previewPath: string;
  thumbnailPath: string;
}

export interface ImageServiceOptions {
  /** Where conversion writes previews and thumbnails, one folder per image. */
  derivedDir: string;
  minPartSize: number;
  presignExpirySeconds: number;
  /** Turns a stored TIFF into its shape and previews; throws an Error whose message a user can act on. */
  convert: (tiffPath: string, outDir: string) => Promise<ConvertedImage>;
  /** A local path to read a stored object from (the embedded store answers its own file). */
  localPathOf: (key: string) => Promise<string>;
}

export interface UploadPlanView {
  partSize: number;
  uploadId: string;
  urls: Array<{ partNumber: number; url: string }>;
}

export interface NewImageFields {
  name: string;
  size: number;
  metadata?: Record<string, unknown>;
  folderId?: string | null;
}

/** A storage slot held while a single-request upload streams in; release it exactly once. */
export interface SlotReservation {
  release(): void;
}

/**
 * The image lifecycle of the interface's "Image upload_status" table: single-request uploads,
 * resumable uploads over presigned parts, conversion, abort and deletion, and the storage cap.
 * Cap checks and the state changes they guard happen with no await in between, so they are exact
 * under any number of concurrent requests.
 */
export class ImageService {
  /** Conversions in flight, so shutdown and tests can wait for them. */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly state: MockState,
    private readonly store: ObjectStore,
    private readonly clock: MockClock,
    private readonly options: ImageServiceOptions,
  ) {}

  get(org: Organization, id: string): ImageRecord {
    const image = this.state.images.get(id);
    if (!image || image.organizationId !== org.id) throw notFound('Image');
    return image;
  }

  /** Holds one slot of the storage cap before any byte of a single-request upload is read. */
  reserveSlot(org: Organization): SlotReservation {
    this.assertSlotFree(org);
    org.reservedSlots++;
    let released = false;
    return {
      release: () => {
        if (!released) org.reservedSlots--;
        released = true;
      },
    };
  }

  /**
   * Mode A: the file is already on local disk (streamed there by the HTTP layer). Stores it,
   * converts it, and answers the record: `ready`, or `failed` with a reason.
   */
  async createFromFile(
    org: Organization,
    reservation: SlotReservation,
    file: { name: string; path: string; size: number },
  ): Promise<ImageRecord> {
    const image = this.newRecord(org, { name: file.name, size: file.size });
    image.uploadStatus = 'processing';
    this.state.images.set(image.id, image);
    reservation.release();
    try {
      await this.store.putObject(image.storageKey, file.path, { move: true });
    } catch (err) {
      this.state.images.delete(image.id);
      throw err;
    }
    await this.convert(image);
    return image;
  }

  /** Mode B and image-record creation with `resumable: true`: a record in `uploading` and its part plan. */
  async openResumable(
    org: Organization,
    fields: NewImageFields,
  ): Promise<{ image: ImageRecord; plan: UploadPlanView }> {
    this.assertSlotFree(org);
    const image = this.newRecord(org, fields);
    this.state.images.set(image.id, image);
    try {
      const layout = planParts(fields.size, this.options.minPartSize);
      const { uploadId } = await this.store.createMultipartUpload(image.storageKey, {
        totalSize: fields.size,
        ...layout,
      });
      image.multipartUploadId = uploadId;
      const urls = [];
      for (let n = 1; n <= layout.partCount; n++) {
        urls.push({
          partNumber: n,
          url: await this.store.presignPart(uploadId, n, this.options.presignExpirySeconds),
        });
      }
      return { image, plan: { partSize: layout.partSize, uploadId, urls } };
    } catch (err) {
      this.state.images.delete(image.id);
      throw err;
    }
  }

  /** Image-record creation without `resumable`: a record waiting for its pixels, no plan. */
  createRecord(org: Organization, fields: NewImageFields): ImageRecord {
    this.assertSlotFree(org);
    const image = this.newRecord(org, fields);
    this.state.images.set(image.id, image);
    return image;
  }

  /**
   * Assembles the parts (all that arrived, or exactly `parts`) and starts conversion. Every check
   * happens before anything changes: a refused complete leaves the upload open and its parts intact.
   */
  async complete(
    org: Organization,
    id: string,
    parts?: Array<{ part_number: number; etag: string }>,
  ): Promise<void> {
    const image = this.get(org, id);
    this.assertUploading(image, 'completed');
    if (image.completing) throw new DomainError('invalid_state', 'This upload is already being completed.');
    const uploadId = image.multipartUploadId;
    if (!uploadId) {
      throw new DomainError(
        'invalid_state',
        'This image record has no resumable upload: create it with "resumable": true.',
      );
    }
    image.completing = true;
    try {
      const selection: PartSelection[] | undefined = parts?.length
        ? parts.map((p) => ({ partNumber: p.part_number, etag: p.etag }))
        : undefined;
      await this.assertSizeMatches(image, uploadId, selection);
      await this.store.completeMultipartUpload(uploadId, selection);
    } catch (err) {
      image.completing = false;
      throw asInputError(err);
    }
    image.completing = false;
    image.multipartUploadId = null;
    image.uploadStatus = 'processing';
    this.track(this.convert(image));
  }

  async abort(org: Organization, id: string): Promise<void> {
    const image = this.get(org, id);
    this.assertUploading(image, 'aborted');
    if (image.completing)
      throw new DomainError('invalid_state', 'This upload is being completed and can no longer be aborted.');
    const uploadId = image.multipartUploadId;
    image.multipartUploadId = null;
    image.uploadStatus = 'failed';
    image.uploadError = 'Upload aborted by the client; uploaded parts were discarded.';
    image.processedAt = this.clock.nowIso();
    if (uploadId) await this.store.abortMultipartUpload(uploadId);
  }

  /** Removes the record, its stored original and everything derived; aborts an open upload first. */
  async delete(org: Organization, id: string): Promise<void> {
    const image = this.get(org, id);
    this.state.images.delete(id);
    if (image.multipartUploadId)
      await this.store.abortMultipartUpload(image.multipartUploadId).catch(() => undefined);
    await this.store.deletePrefix(imagePrefix(image));
    await rm(this.derivedDirOf(image), { recursive: true, force: true });
  }

  /** After a restart: conversions that were running start again. */
  resumeConversions(): void {
    for (const image of this.state.images.values()) {
      if (image.uploadStatus === 'processing') this.track(this.convert(image));
    }
  }

  /** Resolves when every conversion started so far has finished. */
  async idle(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  async localPathOf(image: ImageRecord): Promise<string> {
    return this.options.localPathOf(image.storageKey);
  }

  private async convert(image: ImageRecord): Promise<void> {
    try {
      const outDir = this.derivedDirOf(image);
      await mkdir(outDir, { recursive: true });
      const converted = await this.options.convert(await this.options.localPathOf(image.storageKey), outDir);
      if (!this.state.images.has(image.id)) return; // deleted while converting
      image.shape = converted.shape;
      image.derived = {
        previewPath: converted.previewPath,
        thumbnailPath: converted.thumbnailPath,
        width: converted.width,
        height: converted.height,
      };
      image.uploadStatus = 'ready';
    } catch (err) {
      image.uploadStatus = 'failed';
      image.uploadError = err instanceof Error ? err.message : String(err);
    }
    image.processedAt = this.clock.nowIso();
  }

  private track(work: Promise<void>): void {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  private assertSlotFree(org: Organization): void {
    const stored = this.state.imagesOf(org.id).length + org.reservedSlots;
    if (stored >= org.plan.storageCapImages)
      throw new DomainError('cap_reached', storageCapMessage(org, stored));
  }

  private assertUploading(image: ImageRecord, verb: string): void {
    if (image.uploadStatus !== 'uploading') {
      throw new DomainError(
        'invalid_state',
        `Image is not uploading (upload_status is '${image.uploadStatus}'): only an image in 'uploading' can be ${verb}.`,
      );
    }
  }

  private async assertSizeMatches(
    image: ImageRecord,
    uploadId: string,
    selection?: PartSelection[],
  ): Promise<void> {
    const arrived = await this.store.listParts(uploadId);
    if (arrived.length === 0) {
      throw new DomainError(
        'invalid_input',
        'No parts were uploaded: PUT each chunk to its presigned url before completing.',
      );
    }
    const chosen = selection ? new Set(selection.map((p) => p.partNumber)) : null;
    const missing = selection?.filter((p) => !arrived.some((a) => a.partNumber === p.partNumber)) ?? [];
    if (missing.length) {
      throw new DomainError('invalid_input', `Part ${missing[0].partNumber} was not uploaded.`);
    }
    const total = arrived
      .filter((p) => !chosen || chosen.has(p.partNumber))
      .reduce((sum, p) => sum + p.size, 0);
    if (total !== image.size) {
      throw new DomainError(
        'invalid_input',
        `Size mismatch: the image was declared as ${image.size} bytes but the parts add up to ${total} bytes.`,
      );
    }
  }

  private newRecord(org: Organization, fields: NewImageFields): ImageRecord {
    const id = randomUUID();
    return {
      id,
      organizationId: org.id,
      name: fields.name,
      imageType: 'TIFF',
      size: fields.size,
      shape: null,
      uploadStatus: 'uploading',
      uploadError: null,
      createdAt: this.clock.nowIso(),
      processedAt: null,
      metadata: fields.metadata ?? {},
      folderId: fields.folderId ?? null,
      // Opaque, unrelated to the image or organization: with an S3 store the key appears in part URLs.
      storageKey: `objects/${randomUUID()}/original.tif`,
      multipartUploadId: null,
      completing: false,
      derived: null,
    };
  }

  private derivedDirOf(image: ImageRecord): string {
    return path.join(this.options.derivedDir, image.id);
  }
}

function imagePrefix(image: ImageRecord): string {
  return image.storageKey.slice(0, image.storageKey.lastIndexOf('/') + 1);
}

/** Object-store refusals (missing part, wrong ETag) are the client's to fix: report them as such. */
function asInputError(err: unknown): unknown {
  if (err instanceof DomainError) return err;
  if (err instanceof ObjectStoreError) return new DomainError('invalid_input', err.message);
  return err;
}
