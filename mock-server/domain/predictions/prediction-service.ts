import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SegmentationResult } from '../../engines/segmentation/types.js';
import type { MockClock } from '../clock.js';
import { DomainError, notFound } from '../errors.js';
import type { ImageService } from '../images/image-service.js';
import type { ModelRecord } from '../models/model-record.js';
import { consumeAnalysis, type Organization } from '../organizations.js';
import type { MockState } from '../state.js';
import type { PredictionRecord, SegmentationRecord } from './prediction-record.js';

/** Runs a model on a stored TIFF; a GPU worker or the CPU threshold segmenter stand behind it alike. */
export interface SegmentationRunner {
  run(model: ModelRecord, tiffPath: string, signal: AbortSignal): Promise<SegmentationResult>;
}

/** How long each state lasts, and any outcome forced from the control plane. */
export interface ProgressPolicy {
  delaysFor(prediction: PredictionRecord): {
    startDelayMs: number;
    runDelayMs: number;
    completeAfterPolls?: number;
  };
  /** A forced outcome for this prediction, consumed when it is read. */
  takeForcedOutcome(
    prediction: PredictionRecord,
  ): { status: 'FAILED'; error: string } | { status: 'COMPLETED' } | undefined;
}

export const RESULT_FILE = 'result.json';

export interface PredictionServiceOptions {
  /** Where completed segmentations keep their copy of the image preview. */
  segmentationsDir: string;
}

/**
 * Predictions move SUBMITTED -> STARTED -> COMPLETED or FAILED on their own after `POST /predict`;
 * clients only poll. Quota checks, the identical-prediction rule and the record they guard happen
 * synchronously, so they are exact under concurrency.
 */
export class PredictionService {
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  /** Polls seen per prediction, and the waiters held until enough polls arrive. */
  private readonly polls = new Map<string, number>();
  private readonly pollWaiters = new Map<string, { needed: number; release: () => void }>();

  constructor(
    private readonly state: MockState,
    private readonly images: ImageService,
    private readonly runner: SegmentationRunner,
    private readonly policy: ProgressPolicy,
    private readonly clock: MockClock,
    private readonly options: PredictionServiceOptions,
  ) {}

  submit(
    org: Organization,
    imageId: string,
    modelId: string,
  ): { prediction: PredictionRecord; skipped: boolean } {
    const image = this.images.get(org, imageId);
    const model = this.state.models.getFor(org, modelId);
    if (image.uploadStatus !== 'ready') {
      throw new DomainError(
        'not_ready',
        `Image ${image.id} is not ready (upload_status is '${image.uploadStatus}'): ` +
          (image.uploadStatus === 'failed'
            ? 'upload a new image.'
            : 'poll GET /api/v1/upload/{image_id} until upload_status is ready.'),
      );
    }
    const inFlight = [...this.state.predictions.values()].find(
      (p) =>
        p.organizationId === org.id &&
        p.imageId === imageId &&
        p.modelId === modelId &&
        (p.status === 'SUBMITTED' || p.status === 'STARTED'),
    );
    if (inFlight) return { prediction: inFlight, skipped: true };
    consumeAnalysis(org, this.clock.now());
    const prediction: PredictionRecord = {
      id: randomUUID(),
      organizationId: org.id,
      imageId,
      modelId,
      status: 'SUBMITTED',
      createdAt: this.clock.nowIso(),
      startedAt: null,
      finishedAt: null,
      segmentationId: null,
      cellCount: null,
      error: null,
    };
    this.state.predictions.set(prediction.id, prediction);
    const controller = new AbortController();
    const done = this.drive(prediction, model, controller.signal).finally(() =>
      this.running.delete(prediction.id),
    );
    this.running.set(prediction.id, { controller, done });
    return { prediction, skipped: false };
  }

  get(org: Organization, id: string): PredictionRecord {
    const prediction = this.state.predictions.get(id);
    if (!prediction || prediction.organizationId !== org.id) throw notFound('Prediction');
    if (prediction.status === 'SUBMITTED' || prediction.status === 'STARTED') this.countPoll(id);
    return prediction;
  }

  private countPoll(id: string): void {
    const count = (this.polls.get(id) ?? 0) + 1;
    this.polls.set(id, count);
    const waiter = this.pollWaiters.get(id);
    if (waiter && count >= waiter.needed) {
      this.pollWaiters.delete(id);
      waiter.release();
    }
  }

  /**
   * The control plane's "after N polls": `onRelease` runs synchronously inside the Nth poll, so that
   * very poll already answers the final state.
   */
  private waitForPolls(
    id: string,
    needed: number,
    signal: AbortSignal,
    onRelease: () => void,
  ): Promise<void> {
    if ((this.polls.get(id) ?? 0) >= needed) {
      onRelease();
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.pollWaiters.delete(id);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.pollWaiters.set(id, {
        needed,
        release: () => {
          signal.removeEventListener('abort', onAbort);
          onRelease();
          resolve();
        },
      });
    });
  }

  /** A completed segmentation of the organization; anything else (missing, foreign, not completed) is a 404. */
  segmentation(org: Organization, id: string): SegmentationRecord {
    const segmentation = this.state.segmentations.get(id);
    if (!segmentation || segmentation.organizationId !== org.id) throw notFound('Segmentation');
    return segmentation;
  }

  /** Stops every running job (reset, shutdown) and waits for them to settle. */
  async cancelAll(): Promise<void> {
    const jobs = [...this.running.values()];
    for (const job of jobs) job.controller.abort();
    await Promise.allSettled(jobs.map((j) => j.done));
  }

  /** After a restart: predictions that were in flight run again from SUBMITTED. */
  resumeInFlight(): void {
    for (const prediction of this.state.predictions.values()) {
      if (prediction.status !== 'SUBMITTED' && prediction.status !== 'STARTED') continue;
      const model = this.state.models.get(prediction.modelId);
      if (!model) {
        this.publishFailed(prediction, 'The model no longer exists.');
        continue;
      }
      prediction.status = 'SUBMITTED';
      const controller = new AbortController();
      const done = this.drive(prediction, model, controller.signal).finally(() =>
        this.running.delete(prediction.id),
      );
      this.running.set(prediction.id, { controller, done });
    }
  }

  async loadResult(segmentationId: string): Promise<SegmentationResult> {
    return JSON.parse(
      await readFile(path.join(this.options.segmentationsDir, segmentationId, RESULT_FILE), 'utf8'),
    ) as SegmentationResult;
  }

  async cancelOrganization(orgId: string): Promise<void> {
    const jobs = [...this.running.entries()].filter(
      ([id]) => this.state.predictions.get(id)?.organizationId === orgId,
    );
    for (const [, job] of jobs) job.controller.abort();
    await Promise.allSettled(jobs.map(([, job]) => job.done));
  }

  async idle(): Promise<void> {
    while (this.running.size) await Promise.allSettled([...this.running.values()].map((j) => j.done));
  }

  async deleteSegmentationFiles(segmentation: SegmentationRecord): Promise<void> {
    await rm(path.join(this.options.segmentationsDir, segmentation.id), { recursive: true, force: true });
  }

  private async drive(prediction: PredictionRecord, model: ModelRecord, signal: AbortSignal): Promise<void> {
    // Delays are read at each stage, so the control plane can still change them for a prediction in flight.
    let publish: () => void;
    try {
      await sleep(this.policy.delaysFor(prediction).startDelayMs, signal);
      prediction.status = 'STARTED';
      prediction.startedAt = this.clock.nowIso();
      const forced = this.policy.takeForcedOutcome(prediction);
      const image = this.state.images.get(prediction.imageId);
      if (!image || image.uploadStatus !== 'ready')
        throw new Error('The image was deleted while the prediction ran.');
      const tiffPath = await this.images.localPathOf(image);
      const preview = image.derived?.previewPath ?? null;
      const work =
        forced?.status === 'FAILED'
          ? Promise.reject(new ForcedFailure(forced.error))
          : this.runner.run(model, tiffPath, signal);
      work.catch(() => undefined); // settled below, after the least running time
      await sleep(this.policy.delaysFor(prediction).runDelayMs, signal);
      const segmentation = await this.prepareSegmentation(prediction, model, image.name, await work, preview);
      publish = () => this.publishCompleted(prediction, segmentation);
    } catch (err) {
      if (signal.aborted && !this.state.predictions.has(prediction.id)) return;
      const error = signal.aborted ? 'The prediction was cancelled.' : describe(err);
      publish = () => this.publishFailed(prediction, error);
    }
    const { completeAfterPolls } = this.policy.delaysFor(prediction);
    if (completeAfterPolls && !signal.aborted) {
      await this.waitForPolls(prediction.id, completeAfterPolls, signal, publish).catch(() =>
        this.publishFailed(prediction, 'The prediction was cancelled.'),
      );
    } else {
      publish();
    }
  }

  /** Everything a completed prediction needs, written before it is announced. */
  private async prepareSegmentation(
    prediction: PredictionRecord,
    model: ModelRecord,
    imageName: string,
    result: SegmentationResult,
    imagePreview: string | null,
  ): Promise<SegmentationRecord> {
    const id = randomUUID();
    const dir = path.join(this.options.segmentationsDir, id);
    await mkdir(dir, { recursive: true });
    // Written once, never changed: the persisted state refers to it instead of carrying every outline.
    await writeFile(path.join(dir, RESULT_FILE), JSON.stringify(result));
    let previewPath: string | null = null;
    if (imagePreview) {
      previewPath = path.join(dir, 'preview.png');
      await copyFile(imagePreview, previewPath);
    }
    return {
      id,
      organizationId: prediction.organizationId,
      predictionId: prediction.id,
      imageId: prediction.imageId,
      imageName,
      modelId: model.id,
      modelName: model.name,
      source: `${model.engine.kind === 'remote' ? 'remote' : 'mock-threshold'}/${model.version}`,
      result,
      roiIds: result.objects.map(() => randomUUID()),
      previewPath,
      createdAt: this.clock.nowIso(),
    };
  }

  /** Synchronous: the segmentation appears in the same tick as COMPLETED, never "completed but still being written". */
  private publishCompleted(prediction: PredictionRecord, segmentation: SegmentationRecord): void {
    this.polls.delete(prediction.id);
    this.state.segmentations.set(segmentation.id, segmentation);
    prediction.segmentationId = segmentation.id;
    prediction.cellCount = segmentation.result.objects.length;
    prediction.status = 'COMPLETED';
    prediction.finishedAt = this.clock.nowIso();
  }

  private publishFailed(prediction: PredictionRecord, error: string): void {
    this.polls.delete(prediction.id);
    prediction.status = 'FAILED';
    prediction.error = error;
    prediction.finishedAt = this.clock.nowIso();
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
