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
import { PollHolds } from './poll-holds.js';
import type { PredictionRecord, SegmentationRecord, SegmentationRow } from './prediction-record.js';

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
 * one transaction under the organization's lock, so they are exact under concurrency and committed before the answer.
 * A run re-reads its row at each stage: a prediction deleted meanwhile (its image was deleted, its
 * organization reset) publishes nothing and leaves no files.
 */
export class PredictionService {
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private readonly holds = new PollHolds();
  /** Aborted when the mock stops: results waiting for disk space give up (the run is redone after restart). */
  private readonly stopping = new AbortController();

  constructor(
    private readonly state: StateStore,
    private readonly images: ImageService,
    private readonly runner: SegmentationRunner,
    private readonly policy: ProgressPolicy,
    private readonly clock: MockClock,
    private readonly files: SegmentationFiles,
  ) {}

  async submit(
    org: Organization,
    imageId: string,
    modelId: string,
  ): Promise<{ prediction: PredictionRecord; skipped: boolean }> {
    const outcome = await this.state.transaction(async () => {
      await this.state.organizations.lock(org.id);
      const image = await this.images.get(org, imageId);
      const model = await this.modelFor(org, modelId);
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
      if (inFlight) return { prediction: inFlight, skipped: true, model };
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
      return { prediction, skipped: false, model };
    });
    if (!outcome.skipped) this.start(outcome.prediction, outcome.model);
    return { prediction: outcome.prediction, skipped: outcome.skipped };
  }

  async get(org: Organization, id: string): Promise<PredictionRecord> {
    const prediction = await this.state.predictions.get(id);
    if (!prediction || prediction.organizationId !== org.id) throw notFound('Prediction');
    if (prediction.status === 'SUBMITTED' || prediction.status === 'STARTED') {
      await this.holds.count(id);
      // The Nth poll publishes the outcome before it answers: answer what it published.
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
  isHeldForPolls(id: string): boolean {
    return this.holds.isHeld(id);
  }

  /** Stops every running job (reset, shutdown) and waits for them to settle; their rows stay as they are. */
  async cancelAll(): Promise<void> {
    const jobs = [...this.running.values()];
    for (const job of jobs) job.controller.abort();
    await Promise.allSettled(jobs.map((j) => j.done));
  }

  /** Stops the runs of these predictions (deleted with their image) and removes these segmentations' files. */
  async forget({ predictionIds, segmentationIds }: { predictionIds: string[]; segmentationIds: string[] }) {
    const jobs = predictionIds.flatMap((id) => this.running.get(id) ?? []);
    for (const job of jobs) job.controller.abort();
    await Promise.allSettled(jobs.map((j) => j.done));
    for (const id of segmentationIds) await this.deleteSegmentationFiles(id);
  }

  /**
   * After a restart: a prediction that was in flight when the mock stopped runs again once from
   * SUBMITTED; one that was already run again fails with a reason, never a third time.
   */
  async recoverInFlight(): Promise<void> {
    for (const prediction of await this.state.predictions.withStatus('SUBMITTED', 'STARTED')) {
      const model = await this.state.models.get(prediction.modelId);
      const reason = !model
        ? 'The model no longer exists.'
        : prediction.runAttempts >= 2
          ? 'The prediction was interrupted twice (the mock stopped while it ran). Submit it again.'
          : null;
      if (reason || !model) {
        await this.publishFailed(prediction.id, reason ?? 'The model no longer exists.');
        continue;
      }
      await this.state.transaction(() =>
        this.state.predictions.put({
          ...prediction,
          status: 'SUBMITTED',
          runAttempts: prediction.runAttempts + 1,
        }),
      );
      this.start(prediction, model);
    }
  }

  async cancelOrganization(orgId: string): Promise<void> {
    const jobs: Array<[string, { controller: AbortController; done: Promise<void> }]> = [];
    for (const entry of this.running.entries())
      if ((await this.state.predictions.get(entry[0]))?.organizationId === orgId) jobs.push(entry);
    for (const [, job] of jobs) job.controller.abort();
    await Promise.allSettled(jobs.map(([, job]) => job.done));
  }

  async idle(): Promise<void> {
    while (this.running.size) await Promise.allSettled([...this.running.values()].map((j) => j.done));
  }

  async deleteSegmentationFiles(segmentationId: string): Promise<void> {
    await this.files.remove(segmentationId);
  }

  private start(prediction: PredictionRecord, model: ModelRecord): void {
    const controller = new AbortController();
    const done = this.drive(prediction.id, model, controller.signal).finally(() =>
      this.running.delete(prediction.id),
    );
    this.running.set(prediction.id, { controller, done });
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
    let publish: () => Promise<void>;
    let written: string | undefined;
    try {
      const submitted = await this.state.predictions.get(id);
      if (!submitted) return;
      await sleep((await this.policy.delaysFor(submitted)).startDelayMs, signal);
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
      publish = () => this.publishCompleted(id, segmentation);
    } catch (err) {
      if (signal.aborted) return; // reset, shutdown or delete: the row is gone or resumes after a restart
      const error = describe(err);
      publish = () => this.publishFailed(id, error);
    }
    // A publish that meets a full disk is committed in the background once there is space: the
    // client only polls, and the prediction must not stay in flight for good.
    let published = false;
    const tryPublish = async () => {
      // An outcome forced while it ran (POST /__mock/predictions/outcomes on a STARTED prediction)
      // is read here, the last moment it can change what is published.
      const late = await this.policy.takeOutcomeForcedOn(id);
      if (late?.status === 'FAILED') publish = () => this.publishFailed(id, late.error);
      try {
        await publish();
        published = true;
      } catch (err) {
        if (!(err instanceof DomainError && err.kind === 'storage_full')) throw err;
      }
    };
    const current = await this.state.predictions.get(id);
    const { completeAfterPolls } = current
      ? await this.policy.delaysFor(current)
      : { completeAfterPolls: undefined };
    try {
      if (completeAfterPolls && !signal.aborted)
        await this.holds.waitFor(id, completeAfterPolls, signal, tryPublish);
      else if (!signal.aborted) await tryPublish();
    } catch {
      // aborted while waiting for polls
    }
    if (!published && !signal.aborted) await commitWhenSpace(publish, this.stopping.signal);
    if (
      written &&
      (await this.state.predictions.get(id))?.segmentationId !== written &&
      !this.stopping.signal.aborted
    )
      await this.deleteSegmentationFiles(written);
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
  ): Promise<SegmentationRecord> {
    const id = randomUUID();
    const previewPath = await this.files.write(id, result, imagePreview);
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
      result,
      previewPath,
    };
  }

  /** One commit: the segmentation appears with COMPLETED, never "completed but still being written". */
  private async publishCompleted(id: string, segmentation: SegmentationRecord): Promise<void> {
    await this.holds.forget(id);
    const { result: _result, previewPath: _previewPath, ...row } = segmentation;
    const finishedAt = this.clock.nowIso(segmentation.organizationId);
    await this.state.transaction(async () => {
      const current = await this.state.predictions.get(id);
      if (!current || (current.status !== 'SUBMITTED' && current.status !== 'STARTED')) return;
      if (!(await this.state.images.get(current.imageId))) return;
      await this.state.segmentations.put(row satisfies SegmentationRow);
      await this.state.predictions.put({
        ...current,
        segmentationId: segmentation.id,
        cellCount: segmentation.cellCount,
        status: 'COMPLETED',
        finishedAt,
      });
    });
  }

  private async publishFailed(id: string, error: string): Promise<void> {
    await this.holds.forget(id);
    await this.update(id, (p) => {
      p.status = 'FAILED';
      p.error = error;
      p.finishedAt = this.clock.nowIso(p.organizationId);
    });
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
