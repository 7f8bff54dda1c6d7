import { randomUUID } from 'node:crypto';
import { isUnreadablePlane } from '../../engines/raster/plane-file.js';
import type { SegmentationResult } from '../../engines/segmentation/types.js';
import type { MockClock } from '../clock.js';
import { commitWhenSpace } from '../commit-when-space.js';
import { DomainError, notFound } from '../errors.js';
import type { SegmentationSource } from '../images/derived-files.js';
import type { ImageRecord } from '../images/image-record.js';
import type { ImageService } from '../images/image-service.js';
import type { ModelRecord } from '../models/model-record.js';
import { consumeAnalysis, type Organization } from '../organizations.js';
import type { StateStore } from '../state.js';
import type { SegmentationFiles } from '../segmentations/segmentation-files.js';
import type { JobWorker } from '../jobs/job-worker.js';
import type { JobLease } from '../state.js';
import { PollHolds } from './poll-holds.js';
import type { ReadyOutcome } from './progress-record.js';
import type { OrganizationLimits } from '../abuse-limits.js';
import type { PredictionRecord, SegmentationRow } from './prediction-record.js';

/**
 * Runs a model on an image; a GPU worker or the CPU threshold segmenter stand behind it alike. A
 * kept plane that cannot be read rejects with an error named `PlaneFileError` (engines/raster/plane-file.ts).
 */
export interface SegmentationRunner {
  run(model: ModelRecord, source: SegmentationSource, signal: AbortSignal): Promise<SegmentationResult>;
}

/** How long each state lasts, and any outcome forced from the control plane. */
export interface ProgressPolicy {
  delaysFor(prediction: PredictionRecord): Promise<{
    startDelayMs: number;
    runDelayMs: number;
    completeAfterPolls?: number;
  }>;
  /** A forced outcome for this prediction, consumed when it is read. */
  takeForcedOutcome(
    prediction: PredictionRecord,
  ): Promise<{ status: 'FAILED'; error: string } | { status: 'COMPLETED' } | undefined>;
  /** An outcome forced on this very prediction after it started, consumed when it is read. */
  takeOutcomeForcedOn(
    predictionId: string,
  ): Promise<{ status: 'FAILED'; error: string } | { status: 'COMPLETED' } | undefined>;
}

/**
 * Predictions move SUBMITTED -> STARTED -> COMPLETED or FAILED on their own after `POST /predict`;
 * clients only poll. The quota check, the identical-prediction rule and the record they guard are
 * one transaction under the organization's lock, so they are exact under concurrency on any number
 * of instances, and committed (with the prediction's job) before the answer. The run is a durable
 * job (jobs/job-worker.ts) that any instance's worker may run; it re-reads its row at each stage,
 * and publishes only while the prediction is in flight: a prediction deleted meanwhile publishes
 * nothing and leaves no files, and a prediction run twice (its first worker died) completes once.
 */
export class PredictionService {
  private readonly holds: PollHolds;
  /** Aborted when the mock stops: results waiting for disk space give up (the run is redone after restart). */
  private readonly stopping = new AbortController();

  constructor(
    private readonly state: StateStore,
    private readonly images: ImageService,
    private readonly runner: SegmentationRunner,
    private readonly policy: ProgressPolicy,
    private readonly clock: MockClock,
    private readonly files: SegmentationFiles,
    private readonly worker: JobWorker,
    /** The sandbox's limit on predictions in flight per organization. */
    private readonly limits?: OrganizationLimits,
  ) {
    this.holds = new PollHolds(state);
    worker.handle('prediction', (lease, signal) => this.run(lease, signal));
  }

  async submit(
    org: Organization,
    imageId: string,
    modelId: string,
  ): Promise<{ prediction: PredictionRecord; skipped: boolean }> {
    const outcome = await this.state.transaction(async () => {
      await this.state.organizations.lock(org.id);
      const image = await this.images.get(org, imageId);
      await this.modelFor(org, modelId);
      if (image.uploadStatus !== 'ready') {
        throw new DomainError(
          'not_ready',
          `Image ${image.id} is not ready (upload_status is '${image.uploadStatus}'): ` +
            (image.uploadStatus === 'failed'
              ? 'upload a new image.'
              : 'poll GET /api/v1/upload/{image_id} until upload_status is ready.'),
        );
      }
      const inFlight = await this.state.predictions.inFlightFor(org.id, imageId, modelId);
      if (inFlight) return { prediction: inFlight, skipped: true };
      await this.limits?.assertPredictionSlot(org.id);
      await consumeAnalysis(this.state.usage, org, this.clock.now(org.id));
      const prediction: PredictionRecord = {
        id: randomUUID(),
        organizationId: org.id,
        imageId,
        modelId,
        status: 'SUBMITTED',
        createdAt: this.clock.nowIso(org.id),
        startedAt: null,
        finishedAt: null,
        segmentationId: null,
        cellCount: null,
        error: null,
        runAttempts: 1,
      };
      await this.state.predictions.put(prediction);
      await this.state.jobs.enqueue('prediction', prediction.id);
      return { prediction, skipped: false };
    });
    if (!outcome.skipped) this.worker.poke();
    return outcome;
  }

  async get(org: Organization, id: string): Promise<PredictionRecord> {
    const prediction = await this.state.predictions.get(id);
    if (!prediction || prediction.organizationId !== org.id) throw notFound('Prediction');
    if (prediction.status === 'SUBMITTED' || prediction.status === 'STARTED') {
      const due = await this.holds.count(id);
      // The Nth poll publishes the held outcome before it answers: answer what it published. A
      // full disk leaves it to the run that holds it, once there is space (waitFor answers 'due').
      if (due) await this.publish(id, due).catch(() => undefined);
      return (await this.state.predictions.get(id)) ?? prediction;
    }
    return prediction;
  }

  private async modelFor(org: Organization, modelId: string): Promise<ModelRecord> {
    const model = await this.state.models.get(modelId);
    if (!model || (model.scope === 'custom' && model.organizationId !== org.id))
      throw notFound(`Model ${modelId}`);
    return model;
  }

  /**
   * Whether the prediction's outcome is ready and held back by "after N polls" (the control plane's
   * `complete_after_polls`) until enough polls have come in: from then on, the Nth poll answers it.
   */
  isHeldForPolls(id: string): Promise<boolean> {
    return this.holds.isHeld(id);
  }

  /** Stops every run of this instance's worker (reset) and waits for them to settle; their rows stay as they are. */
  async cancelAll(): Promise<void> {
    await this.worker.cancelWhere(() => true);
  }

  /** Stops the runs of these predictions (deleted with their image) and removes these segmentations' files. */
  async forget({ predictionIds, segmentationIds }: { predictionIds: string[]; segmentationIds: string[] }) {
    await this.worker.cancel('prediction', predictionIds);
    for (const id of segmentationIds) await this.deleteSegmentationFiles(id);
  }

  /**
   * At start: every prediction in flight has its job (a data folder from before jobs were kept
   * gets them here); a mock that owns its store alone also takes back the leases of the process
   * before it, which no longer runs anything. The job's next claim redoes the run once.
   */
  async recoverInFlight({ soleOwner }: { soleOwner: boolean }): Promise<void> {
    if (soleOwner) await this.state.jobs.releaseAll();
    for (const prediction of await this.state.predictions.withStatus('SUBMITTED', 'STARTED'))
      await this.state.jobs.enqueue('prediction', prediction.id);
    this.worker.poke();
  }

  async cancelOrganization(orgId: string): Promise<void> {
    await this.worker.cancelWhere(
      async (lease) =>
        lease.kind === 'prediction' &&
        (await this.state.predictions.get(lease.subjectId))?.organizationId === orgId,
    );
  }

  /** Resolves when this instance runs no prediction and none is queued. */
  idle(): Promise<void> {
    return this.worker.idle();
  }

  async deleteSegmentationFiles(segmentationId: string): Promise<void> {
    await this.files.remove(segmentationId);
  }

  /**
   * One claim of a prediction's job. A run cut short (its worker stopped or died) is redone once
   * from SUBMITTED; a third claim fails it with a reason, never running it a third time.
   */
  private async run(lease: JobLease, signal: AbortSignal): Promise<void> {
    const id = lease.subjectId;
    const prediction = await this.state.predictions.get(id);
    if (!prediction || (prediction.status !== 'SUBMITTED' && prediction.status !== 'STARTED')) return;
    const rerun = prediction.status === 'STARTED' || prediction.runAttempts > 1 || lease.attempts > 1;
    const attempt = Math.max(lease.attempts, rerun ? prediction.runAttempts + 1 : 1);
    const model = await this.state.models.get(prediction.modelId);
    if (!model) return this.publish(id, { status: 'FAILED', error: 'The model no longer exists.' });
    if (attempt > 2)
      return this.publish(id, {
        status: 'FAILED',
        error: 'The prediction was interrupted twice (the mock stopped while it ran). Submit it again.',
      });
    if (attempt > 1 && !(await this.update(id, (p) => ((p.status = 'SUBMITTED'), (p.runAttempts = attempt)))))
      return;
    await this.drive(id, model, signal);
  }

  /** Applies `change` to the prediction's row if it still exists; false when it was deleted meanwhile. */
  private update(id: string, change: (p: PredictionRecord) => void): Promise<boolean> {
    return this.state.transaction(async () => {
      const current = await this.state.predictions.get(id);
      if (!current) return false;
      change(current);
      await this.state.predictions.put(current);
      return true;
    });
  }

  private async drive(id: string, model: ModelRecord, signal: AbortSignal): Promise<void> {
    // Delays are read at each stage, so the control plane can still change them for a prediction in flight.
    let outcome: ReadyOutcome;
    let written: string | undefined;
    try {
      const submitted = await this.state.predictions.get(id);
      if (!submitted) return;
      await sleep((await this.policy.delaysFor(submitted)).startDelayMs, signal);
      await this.clock.refresh(submitted.organizationId);
      const startedAt = this.clock.nowIso(submitted.organizationId);
      if (!(await this.update(id, (p) => ((p.status = 'STARTED'), (p.startedAt = startedAt))))) return;
      const prediction = await this.state.predictions.get(id);
      if (!prediction) return;
      const forced = await this.policy.takeForcedOutcome(prediction);
      const image = await this.state.images.get(prediction.imageId);
      if (!image || image.uploadStatus !== 'ready')
        throw new Error('The image was deleted while the prediction ran.');
      const preview = image.derived?.previewPath ?? null;
      const work =
        forced?.status === 'FAILED'
          ? Promise.reject(new ForcedFailure(forced.error))
          : this.segment(model, image, signal);
      work.catch(() => undefined); // settled below, after the least running time
      await sleep((await this.policy.delaysFor(prediction)).runDelayMs, signal);
      const segmentation = await this.writeSegmentation(prediction, model, image.name, await work, preview);
      written = segmentation.id;
      outcome = { status: 'COMPLETED', segmentation };
    } catch (err) {
      if (signal.aborted) return; // reset, delete, shutdown or a lost lease: the row is gone or another run publishes
      outcome = { status: 'FAILED', error: describe(err) };
    }
    try {
      await this.hold(id, outcome, signal);
    } finally {
      // Written but not what the row announces (deleted meanwhile, another run published first).
      if (
        written &&
        (await this.state.predictions.get(id))?.segmentationId !== written &&
        !this.stopping.signal.aborted
      )
        await this.deleteSegmentationFiles(written);
    }
  }

  /**
   * Publishes a run's outcome: at once, or held for the polls the control plane asked for. A publish
   * that meets a full disk is committed in the background once there is space: the client only
   * polls, and the prediction must not stay in flight for good.
   */
  private async hold(id: string, outcome: ReadyOutcome, signal: AbortSignal): Promise<void> {
    const current = await this.state.predictions.get(id);
    if (!current || signal.aborted) return;
    const { completeAfterPolls } = await this.policy.delaysFor(current);
    if (completeAfterPolls) {
      let held: 'published' | 'due';
      try {
        held = await this.holds.waitFor(id, completeAfterPolls, outcome, signal);
      } catch {
        if (signal.aborted) return;
        held = 'due'; // the hold could not be kept (a full disk): publish it now, or once there is space
      }
      if (held === 'published') return;
    }
    await commitWhenSpace(() => this.publish(id, outcome), this.stopping.signal);
  }

  /**
   * Segments the plane the image's conversion kept; a kept plane that cannot be read (cut short,
   * overwritten) is no reason to fail the prediction: the stored TIFF is decoded instead, as for an
   * image that has none.
   */
  private async segment(
    model: ModelRecord,
    image: ImageRecord,
    signal: AbortSignal,
  ): Promise<SegmentationResult> {
    const source = await this.images.segmentationSource(image);
    try {
      return await this.runner.run(model, source, signal);
    } catch (err) {
      if (!('planePath' in source) || !isUnreadablePlane(err) || signal.aborted) throw err;
      return this.runner.run(model, await this.images.storedTiffSource(image), signal);
    }
  }

  /** Stops waiting for disk space; predictions that could not publish run again after a restart. */
  stop(): void {
    this.stopping.abort();
  }

  /**
   * Everything a completed prediction needs, written and flushed under a temporary name and then
   * renamed into place, before the row that announces it commits.
   */
  private async writeSegmentation(
    prediction: PredictionRecord,
    model: ModelRecord,
    imageName: string,
    result: SegmentationResult,
    imagePreview: string | null,
  ): Promise<SegmentationRow> {
    const id = randomUUID();
    await this.files.write(id, result, imagePreview);
    return {
      id,
      organizationId: prediction.organizationId,
      predictionId: prediction.id,
      imageId: prediction.imageId,
      imageName,
      modelId: model.id,
      modelName: model.name,
      source: `${model.engine.kind === 'remote' ? 'remote' : 'mock-threshold'}/${model.version}`,
      cellCount: result.objects.length,
      roiIds: result.objects.map(() => randomUUID()),
      hasPreview: imagePreview !== null,
      createdAt: this.clock.nowIso(prediction.organizationId),
    };
  }

  /**
   * One commit, under the organization's lock so that two publishes of one prediction (a poll and
   * its run, or two runs) serialise and the second finds it finished: the segmentation appears with
   * COMPLETED, never "completed but still being written", and never twice.
   */
  private async publish(id: string, outcome: ReadyOutcome): Promise<void> {
    const organizationId = (await this.state.predictions.get(id))?.organizationId;
    if (!organizationId) return;
    await this.clock.refresh(organizationId);
    const finishedAt = this.clock.nowIso(organizationId);
    await this.state.transaction(async () => {
      await this.state.organizations.lock(organizationId);
      const current = await this.state.predictions.get(id);
      if (!current || (current.status !== 'SUBMITTED' && current.status !== 'STARTED')) return;
      // An outcome forced while it ran (POST /__mock/predictions/outcomes on a STARTED prediction)
      // is taken here, the last moment it can change what is published, and with it.
      const late = await this.policy.takeOutcomeForcedOn(id);
      if (late?.status === 'FAILED') outcome = { status: 'FAILED', error: late.error };
      if (outcome.status === 'FAILED') {
        await this.state.predictions.put({ ...current, status: 'FAILED', error: outcome.error, finishedAt });
        return;
      }
      if (!(await this.state.images.get(current.imageId))) return;
      const { segmentation } = outcome;
      await this.state.segmentations.put(segmentation);
      await this.state.predictions.put({
        ...current,
        segmentationId: segmentation.id,
        cellCount: segmentation.cellCount,
        status: 'COMPLETED',
        finishedAt,
      });
    });
    await this.holds.forget(id);
  }
}

/** A failure the control plane asked for: reported in its own words. */
class ForcedFailure extends Error {}

function describe(err: unknown): string {
  if (err instanceof ForcedFailure) return err.message;
  const message = err instanceof Error ? err.message : String(err);
  return message.startsWith('Segmentation failed') ? message : `Segmentation failed: ${message}`;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
