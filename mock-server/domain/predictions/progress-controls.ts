import type { StateStore } from '../state.js';
import type { PredictionRecord } from './prediction-record.js';
import type { ProgressPolicy } from './prediction-service.js';
import type { Delays, DelayScope, ForcedOutcome, ForcedScope } from './progress-record.js';

export type { Delays, ForcedOutcome };

/**
 * How predictions progress: the configured delays, overridden per organization from the control
 * plane, and outcomes forced for the next prediction of an organization. Kept in the state store,
 * so a setting made through one instance holds for predictions any instance runs; an outcome is
 * taken under its organization's lock, so it is consumed once.
 */
export class ProgressControls implements ProgressPolicy {
  constructor(
    private readonly state: StateStore,
    private readonly configured: Delays,
  ) {}

  async setDefaults(delays: Delays): Promise<void> {
    await this.state.progressDelays.set('defaults', '', delays);
  }

  async setOrganizationDelays(orgId: string, delays: Delays | undefined): Promise<void> {
    await this.putDelays('organization', orgId, delays);
  }

  /** The next prediction submitted by the organization ends with this outcome. */
  async forceNextOutcome(orgId: string, outcome: ForcedOutcome): Promise<void> {
    await this.state.transaction(async () => {
      await this.state.organizations.lock(orgId);
      const queue = (await this.state.forcedOutcomes.get('organization', orgId)) ?? [];
      await this.state.forcedOutcomes.set('organization', orgId, [...queue, outcome]);
    });
  }

  /** This prediction (if it has not finished yet) ends with this outcome. */
  async forceOutcomeOf(predictionId: string, outcome: ForcedOutcome): Promise<void> {
    await this.state.forcedOutcomes.set('prediction', predictionId, [outcome]);
  }

  /** This prediction's stages from now on; undefined goes back to its organization's. */
  async setPredictionDelays(predictionId: string, delays: Delays | undefined): Promise<void> {
    await this.putDelays('prediction', predictionId, delays);
  }

  async delaysOf(orgId?: string, predictionId?: string): Promise<Delays> {
    const delays = this.state.progressDelays;
    const own = predictionId === undefined ? undefined : await delays.get('prediction', predictionId);
    if (own) return own;
    const organization = orgId ? await delays.get('organization', orgId) : undefined;
    return organization ?? (await delays.get('defaults', '')) ?? this.configured;
  }

  delaysFor(prediction: PredictionRecord): Promise<Delays> {
    return this.delaysOf(prediction.organizationId, prediction.id);
  }

  /** Consumed once, when a prediction that was forced after it started publishes its outcome. */
  takeOutcomeForcedOn(predictionId: string): Promise<ForcedOutcome | undefined> {
    return this.state.transaction(() => this.takeFirst('prediction', predictionId));
  }

  /** Consumed once, when the prediction starts: its own forced outcome first, then its organization's next. */
  takeForcedOutcome(prediction: PredictionRecord): Promise<ForcedOutcome | undefined> {
    return this.state.transaction(async () => {
      await this.state.organizations.lock(prediction.organizationId);
      return (
        (await this.takeFirst('prediction', prediction.id)) ??
        (await this.takeFirst('organization', prediction.organizationId))
      );
    });
  }

  async clear(orgId?: string): Promise<void> {
    if (orgId === undefined) {
      await this.state.progressDelays.clear();
      await this.state.forcedOutcomes.clear();
    } else {
      await this.state.progressDelays.delete('organization', orgId);
      await this.state.forcedOutcomes.set('organization', orgId, []);
    }
  }

  /** Takes the first of the subject's forced outcomes (inside the caller's transaction). */
  private async takeFirst(scope: ForcedScope, subjectId: string): Promise<ForcedOutcome | undefined> {
    const [first, ...rest] = (await this.state.forcedOutcomes.get(scope, subjectId)) ?? [];
    if (first) await this.state.forcedOutcomes.set(scope, subjectId, rest);
    return first;
  }

  private async putDelays(scope: DelayScope, subjectId: string, delays: Delays | undefined): Promise<void> {
    if (delays === undefined) await this.state.progressDelays.delete(scope, subjectId);
    else await this.state.progressDelays.set(scope, subjectId, delays);
  }
}
