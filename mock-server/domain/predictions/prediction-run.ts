import { setTimeout as wait } from 'node:timers/promises';
import type { MockClock } from '../clock.js';
import { diskFullForNow, isDiskFull, isStoreUnavailable } from '../errors.js';
import type { ImageService } from '../images/image-service.js';
import { underOrganizationLock } from '../organizations.js';
import type { SegmentationFiles } from '../segmentations/segmentation-files.js';
import type { JobLease, StateStore } from '../state.js';
import type { PredictionRecord } from './prediction-record.js';
import type { PredictionPublisher } from './prediction-publisher.js';
import type { ReadyOutcome } from './progress-record.js';
import type { ProgressControls } from './progress-controls.js';
import { segmentImage, type SegmentationRunner } from './segment-image.js';
import { writeSegmentation } from './write-segmentation.js';

/**
 * One claim of a prediction's job, in one straight line: read the control plane's plan once, wait
 * its start delay, turn STARTED, segment the image (for at least the plan's run delay), write the
 * segmentation, publish. The run re-reads its row before each change, so a prediction deleted
 * meanwhile publishes nothing and leaves no files. A run cut short (its worker stopped or died)
 * is redone once, the prediction's status never going back (a STARTED one reads STARTED throughout,
 * openapi.yaml's PredictionStatus); a third claim fails it with a reason, never running it a third time.
 * A run that meets a store unavailable for a moment puts the row back as its claim found it and
 * leaves the job to the worker, which runs it again later: the same attempt, not a rerun.
 */
export class PredictionRun {
  constructor(
    private readonly state: StateStore,
    private readonly images: ImageService,
    private readonly runner: SegmentationRunner,
    private readonly controls: ProgressControls,
    private readonly clock: MockClock,
    private readonly files: SegmentationFiles,
    private readonly publisher: PredictionPublisher,
  ) {}

  async run(lease: JobLease, signal: AbortSignal): Promise<void> {
    const prediction = await this.state.predictions.get(lease.subjectId);
    if (!prediction || (prediction.status !== 'SUBMITTED' && prediction.status !== 'STARTED')) return;
    try {
      await this.attempt(lease, prediction, signal);
    } catch (err) {
      if (isStoreUnavailable(err) && !signal.aborted) await this.restore(prediction).catch(() => undefined);
      throw err;
    }
  }

  /** Fails the prediction whose store stayed unavailable (the worker gave up putting it off). */
  async giveUp(lease: JobLease, why: string): Promise<void> {
    await this.publisher.commit(lease.subjectId, { status: 'FAILED', error: `${why} Submit it again.` });
  }

  private async attempt(lease: JobLease, prediction: PredictionRecord, signal: AbortSignal): Promise<void> {
    const id = prediction.id;
    const rerun = prediction.status === 'STARTED' || prediction.runAttempts > 1 || lease.attempts > 1;
    const attempt = Math.max(lease.attempts, rerun ? prediction.runAttempts + 1 : 1);
    const model = await this.state.models.get(prediction.modelId);
    if (!model || attempt > 2) {
      const error = model ? INTERRUPTED_TWICE : 'The model no longer exists.';
      await this.publisher.commit(id, { status: 'FAILED', error });
      return;
    }
    if (
      attempt !== prediction.runAttempts &&
      !(await this.update(prediction, (p) => (p.runAttempts = attempt)))
    )
      return;
    const plan = await this.controls.planFor(prediction);
    let outcome: ReadyOutcome;
    let written: string | undefined;
    try {
      await sleep(plan.startDelayMs, signal);
      await this.clock.refresh(prediction.organizationId);
      const startedAt = this.clock.nowIso(prediction.organizationId);
      // A rerun keeps the first start: the prediction has read STARTED since then.
      if (!(await this.update(prediction, (p) => ((p.status = 'STARTED'), (p.startedAt ??= startedAt)))))
        return;
      const image = await this.state.images.get(prediction.imageId);
      if (!image || image.uploadStatus !== 'ready')
        throw new Error('The image was deleted while the prediction ran.');
      const work =
        plan.forced?.status === 'FAILED'
          ? Promise.reject(new ForcedFailure(plan.forced.error))
          : segmentImage(this.images, this.runner, model, image, signal);
      work.catch(() => undefined); // settled below, after the least running time
      await sleep(plan.runDelayMs, signal);
      const segmentation = await writeSegmentation(
        this.files,
        this.clock,
        prediction,
        model,
        image,
        await work,
      );
      written = segmentation.id;
      outcome = { status: 'COMPLETED', segmentation };
    } catch (err) {
      if (signal.aborted) return; // reset, delete, shutdown or a lost lease: the row is gone or another run publishes
      if (isStoreUnavailable(err)) throw err;
      // A disk that filled up while the segmentation was written fails no prediction for good.
      if (isDiskFull(err)) throw diskFullForNow();
      outcome = { status: 'FAILED', error: describe(err) };
    }
    try {
      await this.publisher.publish(id, outcome, plan.completeAfterPolls ?? 0, signal);
    } finally {
      // Written but not what the row announces (deleted meanwhile, failed by the control plane,
      // another run published first); files of a mock stopping are the start-up sweep's.
      if (
        written &&
        (await this.state.predictions.get(id))?.segmentationId !== written &&
        !this.publisher.stopped
      )
        await this.files.remove(written);
    }
  }

  /**
   * Puts the row in flight back as `found`, so that the next claim reads the same attempt from it,
   * and drops the outcome it held for polls: its files were removed when its publish failed. One
   * that turned STARTED stays STARTED (a status never goes back) and counts one run fewer instead:
   * the next claim, seeing STARTED, counts a run again, and so reads the same attempt.
   */
  private restore(found: PredictionRecord): Promise<void> {
    return underOrganizationLock(this.state, found.organizationId, async () => {
      const current = await this.state.predictions.get(found.id);
      if (current?.status !== 'SUBMITTED' && current?.status !== 'STARTED') return;
      const { status, startedAt, runAttempts } = found;
      const kept =
        current.status === 'STARTED' && status === 'SUBMITTED'
          ? { runAttempts: runAttempts - 1 }
          : { status, startedAt, runAttempts };
      await this.state.predictions.put({ ...current, ...kept });
      await this.state.pollHolds.delete(found.id);
    });
  }

  /**
   * Applies `change` to the prediction's row if it is still in flight; false when it was deleted or
   * finished meanwhile (the control plane's FAILED, sent to another instance, stops no run here).
   * Under the organization's lock, which a delete and a publish hold too: read and written back
   * without it, a delete or an outcome committed in between would be undone by the write (an upsert).
   */
  private update(prediction: PredictionRecord, change: (p: PredictionRecord) => void): Promise<boolean> {
    return underOrganizationLock(this.state, prediction.organizationId, async () => {
      const current = await this.state.predictions.get(prediction.id);
      if (current?.status !== 'SUBMITTED' && current?.status !== 'STARTED') return false;
      change(current);
      await this.state.predictions.put(current);
      return true;
    });
  }
}

const INTERRUPTED_TWICE =
  'The prediction was interrupted twice (the mock stopped while it ran). Submit it again.';

/** A failure the control plane asked for: reported in its own words. */
class ForcedFailure extends Error {}

function describe(err: unknown): string {
  if (err instanceof ForcedFailure) return err.message;
  const message = err instanceof Error ? err.message : String(err);
  return message.startsWith('Segmentation failed') ? message : `Segmentation failed: ${message}`;
}

/** A stage's delay, cut short when the run is stopped; none at all when it is 0. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  return ms > 0 ? wait(ms, undefined, { signal }) : Promise.resolve();
}
