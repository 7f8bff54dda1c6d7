import type { PredictionRecord } from './prediction-record.js';
import type { ProgressPolicy } from './prediction-service.js';

export interface Delays {
  startDelayMs: number;
  runDelayMs: number;
}

export type ForcedOutcome = { status: 'FAILED'; error: string } | { status: 'COMPLETED' };

/**
 * How predictions progress: the configured delays, overridden per organization from the control
 * plane, and outcomes forced for the next prediction of an organization.
 */
export class ProgressControls implements ProgressPolicy {
  private readonly delaysByOrg = new Map<string, Delays>();
  private readonly forcedNext = new Map<string, ForcedOutcome[]>();

  constructor(private defaults: Delays) {}

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

  delaysFor(prediction: PredictionRecord): Delays {
    return this.delaysByOrg.get(prediction.organizationId) ?? this.defaults;
  }

  takeForcedOutcome(prediction: PredictionRecord): ForcedOutcome | undefined {
    return this.forcedNext.get(prediction.organizationId)?.shift();
  }

  clear(orgId?: string): void {
    if (orgId === undefined) {
      this.delaysByOrg.clear();
      this.forcedNext.clear();
    } else {
      this.delaysByOrg.delete(orgId);
      this.forcedNext.delete(orgId);
    }
  }
}
