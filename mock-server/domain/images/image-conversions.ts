/**
 * Conversions of stored originals into previews (and the decoded plane predictions read), their
 * commit when the disk is full (retried in the background), and their recovery after a restart.
 */
import type { ConvertedImage } from '../../engines/raster/convert-image.js';
import { commitWhenSpace } from '../commit-when-space.js';
import type { MockClock } from '../clock.js';
import { DomainError, diskFullForNow, isDiskFull, isStoreUnavailable } from '../errors.js';
import type { ObjectStore } from '../object-store.js';
import type { JobWorker } from '../jobs/job-worker.js';
import { underOrganizationLock } from '../organizations.js';
import type { JobLease, StateStore } from '../state.js';
import type { DerivedFileSet, DerivedImageFiles } from './derived-files.js';
import type { ImageRecord } from './image-record.js';

/** Turns a stored TIFF into its shape and the derived files; throws an Error whose message a user can act on. */
export type Converter = (tiffPath: string, files: DerivedFileSet) => Promise<ConvertedImage>;

/**
 * Each conversion is a durable job (jobs/job-worker.ts), queued in the transaction that makes its
 * image `processing`: a resumable upload's runs on any instance's worker; a single-request upload's
 * runs at once on the instance that received it, under the job's lease, so if that instance dies
 * another worker redoes it. Each change to the row re-reads it under the organization's lock, which
 * a delete holds too: read and written back without it, a delete committed in between would be
 * undone by the write (an upsert), and the image would be back without its files.
 */
export class ImageConversions {
  /** Aborted when the mock stops: background commits waiting for disk space give up (redone after restart). */
  private readonly stopping = new AbortController();
  /** Commits waiting for disk space, so shutdown and tests can wait for them. */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly state: StateStore,
    private readonly store: ObjectStore,
    private readonly clock: MockClock,
    private readonly convertFile: Converter,
    private readonly files: DerivedImageFiles,
    private readonly worker: JobWorker,
  ) {
    worker.handle(
      'conversion',
      (lease) => this.runClaimed(lease),
      (lease, why) => this.fail(lease.subjectId, `${why} Upload the image again.`),
    );
  }

  /**
   * One claim of a conversion's job. A conversion cut short (its worker stopped or died) is redone
   * once from the stored original; one already redone, or whose original is gone, fails with a
   * reason. The row counts the runs begun (`conversionAttempts`): a claim beyond them is a rerun.
   */
  private async runClaimed(lease: JobLease): Promise<void> {
    const image = await this.state.images.get(lease.subjectId);
    if (!image || image.uploadStatus !== 'processing') return;
    if (lease.attempts > image.conversionAttempts && !(await this.countRerun(image))) return;
    await this.convert(image.id);
  }

  /** Counts a rerun of the image's conversion, or fails it with its reason; false when it is not to run. */
  private async countRerun(image: ImageRecord): Promise<boolean> {
    // Only a missing object is missing: a store that cannot answer now must not fail the image for good.
    const original = await this.store.exists(image.storageKey).catch(() => true);
    const reason = !original
      ? 'The uploaded file was lost: the mock stopped before it was stored. Upload the image again.'
      : image.conversionAttempts >= 2
        ? 'The conversion was interrupted twice (the mock stopped while it ran). Upload the image again.'
        : null;
    return underOrganizationLock(this.state, image.organizationId, async () => {
      const current = await this.state.images.get(image.id);
      if (!current || current.uploadStatus !== 'processing') return false;
      if (reason) await this.markFailed(current, reason);
      else {
        current.conversionAttempts++;
        await this.state.images.put(current);
      }
      return !reason;
    });
  }

  /** Converts the image whose row is `processing`, and commits `ready` or `failed`. */
  private async convert(id: string): Promise<void> {
    const image = await this.state.images.get(id);
    if (!image) return;
    let outcome: { converted: ConvertedImage } | { error: string };
    try {
      const files = await this.files.prepare(id);
      const converted = await this.convertFile(await this.store.localFileOf(image.storageKey), files);
      await this.files.flush(id);
      outcome = { converted };
    } catch (err) {
      // A store unavailable for a moment: the worker runs the job again later (its row unchanged).
      if (isStoreUnavailable(err)) throw err;
      // A disk that filled up while the previews or the plane were written fails no image for good.
      if (isDiskFull(err)) throw diskFullForNow();
      // Server paths in the message are taken out where it leaves the mock (http/server-paths.ts).
      outcome = { error: err instanceof Error ? err.message : String(err) };
    }
    const commit = () =>
      underOrganizationLock(this.state, image.organizationId, async () => {
        const current = await this.state.images.get(id);
        if (!current || current.uploadStatus !== 'processing') return false; // deleted while converting
        if ('error' in outcome) return (await this.markFailed(current, outcome.error), true);
        const { converted } = outcome;
        current.shape = converted.shape;
        current.derived = {
          previewPath: converted.previewPath,
          thumbnailPath: converted.thumbnailPath,
          width: converted.width,
          height: converted.height,
        };
        current.uploadStatus = 'ready';
        current.processedAt = this.clock.nowIso(current.organizationId);
        await this.state.images.put(current);
        return true;
      });
    const dropUnkept = async (kept: boolean | undefined) => {
      if (kept !== false) return;
      await this.files.remove(id);
      // A delete that came while the original was fetched forgot the local copy before it existed.
      await this.store.forgetLocalFile(image.storageKey).catch(() => undefined);
    };
    try {
      await dropUnkept(await commit());
    } catch (err) {
      if (!(err instanceof DomainError && err.kind === 'storage_full')) throw err;
      // The disk is full. The row stays `processing` (committed, so a single-request upload is
      // answered with it) and the result commits in the background once there is space.
      this.track(commitWhenSpace(commit, this.stopping.signal).then(dropUnkept));
    }
  }

  /**
   * At start: every image `processing` has its conversion queued (a data folder from before jobs
   * were kept gets them here). A mock that owns its store alone knows each of them was cut short by
   * the stop of the process before it, and counts that rerun now (or fails the image).
   */
  async recover({ soleOwner }: { soleOwner: boolean }): Promise<void> {
    for (const image of await this.state.images.withStatus('processing')) {
      if (soleOwner && !(await this.countRerun(image))) continue;
      await this.state.jobs.enqueue('conversion', image.id);
    }
    this.worker.poke();
  }

  /** Resolves when every conversion started so far has finished, background commits included. */
  async idle(): Promise<void> {
    await this.worker.idle();
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  /** Stops waiting for disk space; conversions that could not commit are redone after a restart. */
  stop(): void {
    this.stopping.abort();
  }

  /** Fails the image's conversion with `reason`, if it still converts. */
  private async fail(id: string, reason: string): Promise<void> {
    const image = await this.state.images.get(id);
    if (!image) return;
    await underOrganizationLock(this.state, image.organizationId, async () => {
      const current = await this.state.images.get(id);
      if (current?.uploadStatus === 'processing') await this.markFailed(current, reason);
    });
  }

  private async markFailed(image: ImageRecord, reason: string): Promise<void> {
    image.uploadStatus = 'failed';
    image.uploadError = reason;
    image.processedAt = this.clock.nowIso(image.organizationId);
    await this.state.images.put(image);
  }

  private track(work: Promise<void>): void {
    // A conversion reports its failures in its row; nothing it throws may end the process.
    const settled = work.catch(() => undefined);
    this.pending.add(settled);
    void settled.finally(() => this.pending.delete(settled));
  }
}
