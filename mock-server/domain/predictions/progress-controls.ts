import type { PredictionRecord } from './prediction-record.js';
import type { ProgressPolicy } from './prediction-service.js';

export interface Delays {
  startDelayMs: number;
  runDelayMs: number;
  /** Hold COMPLETED/FAILED until the prediction has been polled this many times. */
  completeAfterPolls?: number;
}

export type ForcedOutcome = { status: 'FAILED'; error: string } | { status: 'COMPLETED' };

/**
 * How predictions progress: the configured delays, overridden per organization from the control
 * plane, and outcomes forced for the next prediction of an organization.
 */
export class ProgressControls implements ProgressPolicy {
  private readonly delaysByOrg = new Map<string, Delays>();
  private readonly delaysByPrediction = new Map<string, Delays>();
  private readonly forcedNext = new Map<string, ForcedOutcome[]>();
  private readonly forcedById = new Map<string, ForcedOutcome>();

  private defaults: Delays;

  constructor(private readonly configured: Delays) {
    this.defaults = configured;
  }

  setDefaults(delays: Delays): void {
    this.defaults = delays;
  }

  setOrganizationDelays(orgId: string, delays: Delays | undefined): void {
    if (delays) this.delaysByOrg.set(orgId, delays);
    else this.delaysByOrg.delete(orgId);
  }

  /** The next prediction submitted by the organization ends with this outcome. */
  forceNextOutcome(orgId: string, outcome: ForcedOutcome): void {
    const queue = this.forcedNext.get(orgId) ?? [];
    queue.push(outcome);
    this.forcedNext.set(orgId, queue);
  }

  /** This prediction (if it has not finished yet) ends with this outcome. */
  forceOutcomeOf(predictionId: string, outcome: ForcedOutcome): void {
    this.forcedById.set(predictionId, outcome);
  }

  /** This prediction's stages from now on; undefined goes back to its organization's. */
  setPredictionDelays(predictionId: string, delays: Delays | undefined): void {
    if (delays) this.delaysByPrediction.set(predictionId, delays);
    else this.delaysByPrediction.delete(predictionId);
  }

  delaysOf(orgId?: string, predictionId?: string): Delays {
    const own = predictionId === undefined ? undefined : this.delaysByPrediction.get(predictionId);
    if (own) return own;
    return (orgId && this.delaysByOrg.get(orgId)) || this.defaults;
  }

  delaysFor(prediction: PredictionRecord): Delays {
    return (
      this.delaysByPrediction.get(prediction.id) ??
      this.delaysByOrg.get(prediction.organizationId) ??
      this.defaults
    );
  }

  /** Consumed once, when a prediction that was forced after it started publishes its outcome. */
  takeOutcomeForcedOn(predictionId: string): ForcedOutcome | undefined {
    const own = this.forcedById.get(predictionId);
    this.forcedById.delete(predictionId);
    return own;
  }

  /** Consumed once, when the prediction starts: its own forced outcome first, then its organization's next. */
  takeForcedOutcome(prediction: PredictionRecord): ForcedOutcome | undefined {
    const own = this.forcedById.get(prediction.id);
    if (own) {
      this.forcedById.delete(prediction.id);
      return own;
    }
    return this.forcedNext.get(prediction.organizationId)?.shift();
  }

  clear(orgId?: string): void {
    if (orgId === undefined) {
      this.defaults = this.configured;
      this.delaysByOrg.clear();
      this.delaysByPrediction.clear();
      this.forcedNext.clear();
      this.forcedById.clear();
    } else {
      this.delaysByOrg.delete(orgId);
      this.forcedNext.delete(orgId);
    }
  }
}
