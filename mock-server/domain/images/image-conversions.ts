/**
 * Conversions of stored originals into previews (and the decoded plane predictions read), their
 * commit when the disk is full (retried in the background), and their recovery after a restart.
 */
import { commitWhenSpace } from '../commit-when-space.js';
import type { MockClock } from '../clock.js';
import { DomainError } from '../errors.js';
import type { ObjectStore } from '../object-store.js';
import type { StateStore } from '../state.js';
import type { DerivedFileSet, DerivedImageFiles } from './derived-files.js';
import type { ImageRecord } from './image-record.js';

export interface ConvertedImage {
  shape: number[];
  width: number;
  height: number;
  previewPath: string;
  thumbnailPath: string;
}

/** Turns a stored TIFF into its shape and the derived files; throws an Error whose message a user can act on. */
export type Converter = (tiffPath: string, files: DerivedFileSet) => Promise<ConvertedImage>;

export class ImageConversions {
  /** Conversions in flight, so shutdown and tests can wait for them. */
  private readonly pending = new Set<Promise<void>>();
  /** Aborted when the mock stops: background commits waiting for disk space give up (redone after restart). */
  private readonly stopping = new AbortController();

  constructor(
    private readonly state: StateStore,
    private readonly store: ObjectStore,
    private readonly clock: MockClock,
    private readonly convertFile: Converter,
    private readonly files: DerivedImageFiles,
  ) {}

  /** Converts the image whose row is `processing`, and commits `ready` or `failed`. */
  async convert(id: string): Promise<void> {
    const image = await this.state.images.get(id);
    if (!image) return;
    let outcome: { converted: ConvertedImage } | { error: string };
    try {
      const files = await this.files.prepare(id);
      const converted = await this.convertFile(await this.store.localFileOf(image.storageKey), files);
      await this.files.flush(id);
      outcome = { converted };
    } catch (err) {
      // Server paths in the message are taken out where it leaves the mock (http/server-paths.ts).
      outcome = { error: err instanceof Error ? err.message : String(err) };
    }
    const commit = () =>
      this.state.transaction(async () => {
        const current = await this.state.images.get(id);
        if (!current || current.uploadStatus !== 'processing') return false; // deleted while converting
        if ('error' in outcome) return (await markFailed(this.state, current, outcome.error, this.clock), true);
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
      if (kept === false) await this.files.remove(id);
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

  /** Converts in the background; the outcome is in the row. */
  async start(id: string): Promise<void> {
    this.track(this.convert(id));
  }

  /**
   * After a restart: a conversion that was running when the mock stopped is redone once from the
   * stored original; one that was already redone, or whose original is gone, fails with a reason.
   */
  async recover(): Promise<void> {
    for (const image of await this.state.images.withStatus('processing')) {
      // Only a missing object is missing: a store that cannot answer now must not fail the image for good.
      const original = await this.store.exists(image.storageKey).catch(() => true);
      const reason = !original
        ? 'The uploaded file was lost: the mock stopped before it was stored. Upload the image again.'
        : image.conversionAttempts >= 2
          ? 'The conversion was interrupted twice (the mock stopped while it ran). Upload the image again.'
          : null;
      await this.state.transaction(async () => {
        if (reason) await markFailed(this.state, image, reason, this.clock);
        else {
          image.conversionAttempts++;
          await this.state.images.put(image);
        }
      });
      if (!reason) await this.start(image.id);
    }
  }

  /** Resolves when every conversion started so far has finished. */
  async idle(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  /** Stops waiting for disk space; conversions that could not commit are redone after a restart. */
  stop(): void {
    this.stopping.abort();
  }

  private track(work: Promise<void>): void {
    // A conversion reports its failures in its row; nothing it throws may end the process.
    const settled = work.catch(() => undefined);
    this.pending.add(settled);
    void settled.finally(() => this.pending.delete(settled));
  }
}

export async function markFailed(
  state: StateStore,
  image: ImageRecord,
  reason: string,
  clock: MockClock,
): Promise<void> {
  image.uploadStatus = 'failed';
  image.uploadError = reason;
  image.processedAt = clock.nowIso(image.organizationId);
  await state.images.put(image);
}
