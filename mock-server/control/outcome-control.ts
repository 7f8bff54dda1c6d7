import { DomainError, notFound } from '../domain/errors.js';
import type { PredictionRecord } from '../domain/predictions/prediction-record.js';
import type { PredictionService } from '../domain/predictions/prediction-service.js';
import type { ForcedOutcome, ProgressControls } from '../domain/predictions/progress-controls.js';
import type { ScopeLookup } from './progress-control.js';

export interface OutcomeRequest {
  organizationId?: string;
  predictionId?: string;
  /** An organization's own test helpers: a prediction of any other organization is not found. */
  ownerId?: string;
  status: 'COMPLETED' | 'FAILED';
  error?: string;
}

/** A forced outcome was queued, or the named prediction had already finished (nothing changed). */
export type OutcomeResult = { queued: true } | { queued: false; finished: PredictionRecord };

/**
 * `POST /__mock/predictions/outcomes`: how a prediction in flight ends, or how the organization's
 * next prediction will. A run reads its organization's next outcome once, when it begins, so an
 * outcome for a named prediction is not queued for its run: FAILED ends it here, and COMPLETED is
 * what its run publishes anyway.
 */
export class OutcomeControl {
  constructor(
    private readonly progress: ProgressControls,
    private readonly lookup: ScopeLookup,
    private readonly predictions: Pick<PredictionService, 'failNow'>,
  ) {}

  async force(request: OutcomeRequest): Promise<OutcomeResult> {
    const outcome: ForcedOutcome =
      request.status === 'FAILED'
        ? { status: 'FAILED', error: request.error ?? 'Segmentation failed (forced by the control plane)' }
        : { status: 'COMPLETED' };
    if (request.predictionId) {
      const prediction = await this.lookup.prediction(request.predictionId);
      if (!prediction) throw notFound('Prediction');
      if (request.ownerId !== undefined && prediction.organizationId !== request.ownerId)
        throw notFound('Prediction');
      if (prediction.status === 'COMPLETED' || prediction.status === 'FAILED')
        return { queued: false, finished: prediction };
      if (outcome.status === 'FAILED' && !(await this.predictions.failNow(prediction.id, outcome.error))) {
        const finished = await this.lookup.prediction(prediction.id);
        if (!finished) throw notFound('Prediction');
        return { queued: false, finished };
      }
    } else if (request.organizationId) {
      await this.lookup.organization(request.organizationId);
      await this.progress.forceNextOutcome(request.organizationId, outcome);
    } else {
      throw new DomainError('invalid_input', 'organization_id or prediction_id: one of them is required');
    }
    return { queued: true };
  }
}
