import { randomUUID } from 'node:crypto';
import type { MockClock } from '../clock.js';
import { DomainError, notFound, ownRow } from '../errors.js';
import type { DeletedDerivatives, ImageService } from '../images/image-service.js';
import type { ModelRecord } from '../models/model-record.js';
import { consumeAnalysis, underOrganizationLock, type Organization } from '../organizations.js';
import type { StateStore } from '../state.js';
import type { SegmentationFiles } from '../segmentations/segmentation-files.js';
import type { JobWorker } from '../jobs/job-worker.js';
import type { OrganizationLimits } from '../abuse-limits.js';
import type { PredictionRecord } from './prediction-record.js';
import { PredictionPublisher } from './prediction-publisher.js';
import { PredictionRun } from './prediction-run.js';
import type { ProgressControls } from './progress-controls.js';
import type { SegmentationRunner } from './segment-image.js';

export type { SegmentationRunner };

/**
 * Predictions move SUBMITTED -> STARTED -> COMPLETED or FAILED on their own after `POST /predict`;
 * clients only poll. The quota check, the identical-prediction rule and the record they guard are
 * one transaction under the organization's lock, so they are exact under concurrency on any number
 * of instances, and committed (with the prediction's job) before the answer. The run is a durable
 * job (jobs/job-worker.ts) that any instance's worker may run: prediction-run.ts, which publishes
 * only while the prediction is in flight, so a prediction run twice (its first worker died)
 * completes once.
 */
export class PredictionService {
  private readonly publisher: PredictionPublisher;

  constructor(
    private readonly state: StateStore,
    images: ImageService,
    runner: SegmentationRunner,
    controls: ProgressControls,
    private readonly clock: MockClock,
    private readonly files: SegmentationFiles,
    private readonly worker: JobWorker,
    /** The sandbox's limit on predictions in flight per organization. */
    private readonly limits?: OrganizationLimits,
  ) {
    this.publisher = new PredictionPublisher(state, clock);
    const run = new PredictionRun(state, images, runner, controls, clock, files, this.publisher);
    // The worker calls the run itself, not back into this service.
    worker.handle('prediction', run.run.bind(run), run.giveUp.bind(run));
  }

  async submit(
    org: Organization,
    imageId: string,
    modelId: string,
  ): Promise<{ prediction: PredictionRecord; skipped: boolean }> {
    const outcome = await underOrganizationLock(this.state, org.id, async () => {
      // Read here, not through ImageService: the run resolves the image's source there, once.
      const image = ownRow(await this.state.images.get(imageId), org, 'Image');
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
    const prediction = ownRow(await this.state.predictions.get(id), org, 'Prediction');
    if (prediction.status === 'SUBMITTED' || prediction.status === 'STARTED') {
      // The Nth poll publishes the held outcome before it answers: answer what it published.
      await this.publisher.countPoll(id);
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
    return this.publisher.isHeld(id);
  }

  /**
   * The control plane's forced FAILED on a named prediction: it ends at once, and this instance's
   * run of it stops (a run elsewhere discards its result when it finds it finished). False when it
   * had already finished.
   */
  async failNow(id: string, error: string): Promise<boolean> {
    const failed = await this.publisher.commit(id, { status: 'FAILED', error });
    await this.worker.cancel('prediction', [id]);
    return failed;
  }

  /** Stops the runs of these predictions (deleted with their image) and removes these segmentations' files. */
  async forget({ predictionIds, segmentationIds }: DeletedDerivatives): Promise<void> {
    await this.worker.cancel('prediction', predictionIds);
    for (const id of segmentationIds) await this.files.remove(id);
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

  /** Stops waiting for disk space; predictions that could not publish run again after a restart. */
  stop(): void {
    this.publisher.stop();
  }
}
