import { randomUUID } from 'node:crypto';
import { ObjectStoreError, type ObjectStore, type PartSelection } from '../object-store.js';
import type { MockClock } from '../clock.js';
import { DomainError, notFound, ownRow, storageFull } from '../errors.js';
import { storageCapMessage, underOrganizationLock, type Organization } from '../organizations.js';
import { HeldMarks, type HeldMark } from '../held-marks.js';
import type { StateStore } from '../state.js';
import type { DerivedImageFiles, SegmentationSource } from './derived-files.js';
import { type Converter, ImageConversions } from './image-conversions.js';
import type { ImageRecord } from './image-record.js';
import { newImageRecord, type NewImageFields } from './new-image-record.js';
import type { JobWorker } from '../jobs/job-worker.js';
import { assertPartsAddUp } from './part-sizes.js';
import { knownUpload } from './upload-plan.js';
import type { OrganizationLimits } from '../abuse-limits.js';

export interface ImageServiceOptions {
  minPartSize: number;
  presignExpirySeconds: number;
  convert: Converter;
  derivedFiles: DerivedImageFiles;
  /** Runs the conversion jobs (and, on the same instance, the prediction jobs). */
  worker: JobWorker;
  /** The sandbox's limits on stored bytes and open uploads, checked with the storage cap. */
  limits?: OrganizationLimits;
}

/** What a delete removed besides the image: rows whose running work and files must go too. */
export interface DeletedDerivatives {
  predictionIds: string[];
  segmentationIds: string[];
}

export interface UploadPlanView {
  partSize: number;
  uploadId: string;
  urls: Array<{ partNumber: number; url: string }>;
}

/** A single-request upload's file, received to local disk; the image service moves it into the store. */
export interface IncomingFile {
  name: string;
  path: string;
  size: number;
}

/**
 * The image lifecycle of the interface's "Image upload_status" table: single-request uploads,
 * resumable uploads over presigned parts, conversion, abort and deletion, and the storage cap.
 * Each check and the change it guards run in one transaction under the organization's lock, so they
 * are exact under any number of concurrent requests on any number of instances, and committed
 * before the request is answered. Files are made
 * durable before the row that points at them commits; a delete commits first and removes files after.
 */
export class ImageService {
  private readonly conversions: ImageConversions;
  /** Storage slots held by single-request uploads still streaming in, per organization. */
  private readonly reserved: HeldMarks;
  /** Images whose complete is assembling parts, so a second complete or an abort is refused instead of racing. */
  private readonly completing: HeldMarks;
  /** Told which predictions and segmentations a delete removed, so their work stops and files go. */
  onDeleted: (derived: DeletedDerivatives) => Promise<void> = async () => undefined;

  constructor(
    private readonly state: StateStore,
    private readonly store: ObjectStore,
    private readonly clock: MockClock,
    private readonly options: ImageServiceOptions,
  ) {
    this.conversions = new ImageConversions(
      state,
      store,
      clock,
      options.convert,
      options.derivedFiles,
      options.worker,
    );
    this.reserved = new HeldMarks(state.heldMarks, 'slot');
    this.completing = new HeldMarks(state.heldMarks, 'completing');
  }

  async get(org: Organization, id: string): Promise<ImageRecord> {
    return ownRow(await this.state.images.get(id), org, 'Image');
  }

  /** Images stored plus slots held by uploads still streaming: what the storage cap counts. */
  async storedCount(org: Organization): Promise<number> {
    return (await this.state.images.countOf(org.id)) + (await this.reserved.count(org.id));
  }

  /**
   * Mode A, one request: holds a slot of the storage cap before any byte is read (so the cap is
   * exact however many uploads stream at once, and a full organization is refused before the body),
   * has `receive` bring the file to local disk, then stores and converts it. A file `receive` could
   * not bring is answered as it said, untouched; the slot is given back in every case.
   */
  async uploadFile<Refusal>(
    org: Organization,
    receive: () => Promise<IncomingFile | { refused: Refusal }>,
  ): Promise<{ image: ImageRecord } | { refused: Refusal }> {
    const reservation = await this.reserveSlot(org);
    try {
      const received = await receive();
      if ('refused' in received) return received;
      return { image: await this.createFromFile(org, reservation, received) };
    } finally {
      await reservation.release();
    }
  }

  /**
   * A slot is taken and given back under the organization's lock, as every change to what the cap
   * counts is: a count of images and slots is two reads, and a slot given back between them
   * unlocked would be counted by neither. Releasing twice is harmless (a delete of what is gone),
   * so a release rolled back with its transaction is redone.
   */
  private async reserveSlot(org: Organization): Promise<Pick<HeldMark, 'release'>> {
    const mark = await underOrganizationLock(this.state, org.id, async () => {
      await this.assertSlotFree(org);
      return this.reserved.hold(org.id, randomUUID());
    });
    mark.keep();
    return {
      release: () => underOrganizationLock(this.state, org.id, () => mark.release()),
    };
  }

  /** The row commits before the slot is released, so the cap never counts the image twice or not at all. */
  private async createFromFile(
    org: Organization,
    reservation: Pick<HeldMark, 'release'>,
    file: IncomingFile,
  ): Promise<ImageRecord> {
    const image = newImageRecord(org.id, { name: file.name, size: file.size }, this.clock.nowIso(org.id));
    image.uploadStatus = 'processing';
    image.conversionAttempts = 1;
    try {
      // The bytes are stored and flushed before the row that points at them commits.
      await this.store.putObject(image.storageKey, file.path, { move: true });
      // The slot is given back in the transaction that writes the row: the cap never counts both or neither.
      await underOrganizationLock(this.state, org.id, async () => {
        await this.options.limits?.assertRoomForImage(org.id, { size: file.size, resumable: false });
        await this.state.images.put(image);
        await this.options.worker.enqueueHeld('conversion', image.id);
        await reservation.release();
      });
    } catch (err) {
      await this.store.deletePrefix(imagePrefix(image)).catch(() => undefined);
      throw asInputError(err);
    }
    await this.options.worker.runHeld('conversion', image.id);
    return (await this.state.images.get(image.id)) ?? image;
  }

  /** Mode B and image-record creation with `resumable: true`: a record in `uploading` and its part plan. */
  async openResumable(
    org: Organization,
    fields: NewImageFields,
  ): Promise<{ image: ImageRecord; plan: UploadPlanView }> {
    assertFolderVisible(fields);
    await this.assertSlotFree(org, { size: fields.size, resumable: true });
    const image = newImageRecord(org.id, fields, this.clock.nowIso(org.id));
    const known = this.known(image);
    const { uploadId } = await this.store
      .createMultipartUpload(image.storageKey, known.plan)
      .catch((err: unknown) => Promise.reject(asInputError(err)));
    try {
      const urls = [];
      for (let n = 1; n <= known.plan.partCount; n++) {
        urls.push({
          partNumber: n,
          url: await this.store.presignPart(uploadId, n, this.options.presignExpirySeconds, known),
        });
      }
      image.multipartUploadId = uploadId;
      // The cap is checked again where the row is written: other requests ran during the awaits.
      await underOrganizationLock(this.state, org.id, async () => {
        await this.assertSlotFree(org, { size: fields.size, resumable: true });
        await this.state.images.put(image);
      });
      return { image, plan: { partSize: known.plan.partSize, uploadId, urls } };
    } catch (err) {
      await this.store.abortMultipartUpload(uploadId, known).catch(() => undefined);
      throw asInputError(err);
    }
  }

  /** Image-record creation without `resumable`: a record waiting for its pixels, no plan. */
  async createRecord(org: Organization, fields: NewImageFields): Promise<ImageRecord> {
    assertFolderVisible(fields);
    const image = newImageRecord(org.id, fields, this.clock.nowIso(org.id));
    await underOrganizationLock(this.state, org.id, async () => {
      await this.assertSlotFree(org, { size: fields.size, resumable: false });
      await this.state.images.put(image);
    });
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
    const image = await this.get(org, id);
    this.assertUploading(image, 'completed');
    const uploadId = image.multipartUploadId;
    if (!uploadId) {
      throw new DomainError(
        'invalid_state',
        'This image record has no resumable upload: create it with "resumable": true.',
      );
    }
    // The mark keeps an abort out while the parts are assembled. A second complete is not refused
    // by it: the store serialises completes of one upload, and the second finds the object
    // assembled and the row no longer uploading (below), or finishes what a complete cut short by
    // a killed instance left, whose mark outlives it until it expires.
    const completing = await underOrganizationLock(this.state, org.id, async () => {
      return this.completing.hold(org.id, id);
    });
    completing.keep();
    try {
      const selection: PartSelection[] | undefined = parts?.length
        ? parts.map((p) => ({ partNumber: p.part_number, etag: p.etag }))
        : undefined;
      // Assembled by an earlier complete whose commit did not happen (a full disk, a crash): the
      // parts are gone but the object is whole, so this complete only has to commit.
      if (!(await this.assembled(image))) {
        const known = this.known(image);
        await assertPartsAddUp(this.store, uploadId, image.size, selection, known);
        await this.store.completeMultipartUpload(uploadId, selection, known);
      }
      // Under the organization's lock, as a delete is: a delete between the read and the write
      // would otherwise be undone by the write.
      const started = await underOrganizationLock(this.state, org.id, async () => {
        // Deleted while the parts were assembled: the delete came first, as in a serial order.
        const current = await this.state.images.get(id);
        if (!current) return false;
        // Another instance's complete committed first (its memory is not this one's `completing`).
        this.assertUploading(current, 'completed');
        current.multipartUploadId = null;
        current.uploadStatus = 'processing';
        current.conversionAttempts++;
        await this.state.images.put(current);
        await this.state.jobs.enqueue('conversion', id);
        await completing.release();
        return true;
      });
      if (!started) {
        await this.store.deletePrefix(imagePrefix(image)).catch(() => undefined);
        throw notFound('Image');
      }
    } catch (err) {
      // Deleted while the parts were assembled: answer as if the delete had come first.
      if (!(await this.state.images.get(id))) throw notFound('Image');
      // Assembled by another instance's complete, whose commit may not be in yet: that one answers.
      if (err instanceof ObjectStoreError && err.code === 'NoSuchUpload' && (await this.assembled(image)))
        throw new DomainError('invalid_state', 'This upload is already being completed.');
      throw asInputError(err);
    } finally {
      await completing.release();
    }
    // A worker (any instance's) takes the queued conversion; this one looks now rather than at its next poll.
    this.options.worker.poke();
  }

  async abort(org: Organization, id: string): Promise<void> {
    const image = await this.get(org, id);
    this.assertUploading(image, 'aborted');
    const uploadId = image.multipartUploadId;
    await underOrganizationLock(this.state, org.id, async () => {
      if (await this.completing.isHeld(org.id, id))
        throw new DomainError(
          'invalid_state',
          'This upload is being completed and can no longer be aborted.',
        );
      const current = await this.state.images.get(id);
      if (!current) throw notFound('Image');
      this.assertUploading(current, 'aborted');
      current.multipartUploadId = null;
      current.uploadStatus = 'failed';
      current.uploadError = 'Upload aborted by the client; uploaded parts were discarded.';
      current.processedAt = this.clock.nowIso(current.organizationId);
      await this.state.images.put(current);
    });
    if (uploadId) await this.store.abortMultipartUpload(uploadId, this.known(image)).catch(() => undefined);
  }

  /**
   * Removes the record and everything derived from it (its predictions, segmentations and their
   * shares) in one commit, then their files: the stored original, previews, segmentation folders.
   */
  async delete(org: Organization, id: string): Promise<void> {
    // Read under the lock a delete holds: of two deletes at once, the second finds it gone (404).
    const { image, derived } = await underOrganizationLock(this.state, org.id, async () => {
      const image = await this.get(org, id);
      return { image, derived: await this.deleteRows(id) };
    });
    await this.onDeleted(derived);
    await this.removeFiles(image);
  }

  /**
   * The image's row and the rows derived from it, and their jobs, inside the caller's transaction
   * (which holds the organization's lock); their files are the caller's to remove after the commit.
   */
  async deleteRows(id: string): Promise<DeletedDerivatives> {
    const segmentationIds = await this.state.segmentations.idsOfImage(id);
    const predictionIds = await this.state.predictions.idsOfImage(id);
    for (const segmentationId of segmentationIds) {
      for (const shareId of await this.state.shares.idsOfSegmentation(segmentationId))
        await this.state.shares.delete(shareId);
      await this.state.segmentations.delete(segmentationId);
    }
    for (const predictionId of predictionIds) {
      await this.state.predictions.delete(predictionId);
      await this.state.pollHolds.delete(predictionId);
      await this.state.jobs.cancel('prediction', predictionId);
    }
    await this.state.jobs.cancel('conversion', id);
    await this.state.images.delete(id);
    return { predictionIds, segmentationIds };
  }

  /** The files of an image whose row is gone: its open upload, stored original, local copy and previews. */
  async removeFiles(image: ImageRecord): Promise<void> {
    if (image.multipartUploadId)
      await this.store
        .abortMultipartUpload(image.multipartUploadId, this.known(image))
        .catch(() => undefined);
    await this.store.deletePrefix(imagePrefix(image)).catch(() => undefined);
    await this.store.forgetLocalFile(image.storageKey).catch(() => undefined);
    await this.options.derivedFiles.remove(image.id);
  }

  /**
   * After a restart or a swap of the state: conversions that were running are redone once
   * (image-conversions.ts); a mock that owns its store alone also drops every held mark, since no
   * request of an earlier process holds a slot or a complete.
   */
  async recover({ soleOwner }: { soleOwner: boolean }): Promise<void> {
    if (soleOwner) {
      await this.reserved.dropAll();
      await this.completing.dropAll();
    }
    await this.conversions.recover({ soleOwner });
  }

  /** Resolves when every conversion started so far has finished. */
  idle(): Promise<void> {
    return this.conversions.idle();
  }

  /** Stops waiting for disk space; conversions that could not commit are redone after a restart. */
  stop(): void {
    this.conversions.stop();
  }

  /** What a prediction reads the image from: the plane its conversion kept, else the stored TIFF. */
  async segmentationSource(image: ImageRecord): Promise<SegmentationSource> {
    const planePath = await this.options.derivedFiles.planeOf(image.id);
    return planePath ? { planePath } : this.storedTiffSource(image);
  }

  /** The stored TIFF, for a prediction whose kept plane could not be read. */
  async storedTiffSource(image: ImageRecord): Promise<SegmentationSource> {
    return { tiffPath: await this.store.localFileOf(image.storageKey) };
  }

  /** The plan's cap on images, then the sandbox's limits for an image of this size (0: not known yet). */
  private async assertSlotFree(org: Organization, image = { size: 0, resumable: false }): Promise<void> {
    const stored = await this.storedCount(org);
    if (stored >= org.plan.storageCapImages)
      throw new DomainError('cap_reached', storageCapMessage(org, stored));
    await this.options.limits?.assertRoomForImage(org.id, image);
  }

  /** Whether the image's stored object is whole: its parts were assembled by some complete. */
  private async assembled(image: ImageRecord): Promise<boolean> {
    return (await this.store.headObject(image.storageKey).catch(() => null))?.size === image.size;
  }

  private assertUploading(image: ImageRecord, verb: string): void {
    if (image.uploadStatus !== 'uploading') {
      throw new DomainError(
        'invalid_state',
        `Image is not uploading (upload_status is '${image.uploadStatus}'): only an image in 'uploading' can be ${verb}.`,
      );
    }
  }

  /** The row's record of its upload, for a store that keeps none of its own (upload-plan.ts). */
  private known(image: ImageRecord) {
    return knownUpload(image, this.options.minPartSize);
  }
}

/** The mock has no folders (they are made in the dashboard): any folder id is outside the caller's organization. */
function assertFolderVisible(fields: NewImageFields): void {
  if (fields.folderId) throw notFound('Folder');
}

function imagePrefix(image: ImageRecord): string {
  return image.storageKey.slice(0, image.storageKey.lastIndexOf('/') + 1);
}

/**
 * Object-store refusals (missing part, wrong ETag) are the client's to fix: report them as such.
 * A full disk is nobody's input error: it is `storage_full`, and nothing was kept.
 */
function asInputError(err: unknown): unknown {
  if (err instanceof DomainError) return err;
  if ((err as { code?: unknown } | null)?.code === 'ENOSPC') return storageFull();
  if (err instanceof ObjectStoreError)
    return err.code === 'InsufficientStorage' ? storageFull() : new DomainError('invalid_input', err.message);
  return err;
}
