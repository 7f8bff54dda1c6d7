import type { StateStore } from '../state.js';
import type { PredictionRecord } from './prediction-record.js';
import type { ProgressPolicy } from './prediction-service.js';

export interface Delays {
  startDelayMs: number;
  runDelayMs: number;
  /** Hold COMPLETED/FAILED until the prediction has been polled this many times. */
  completeAfterPolls?: number;
}

export type ForcedOutcome = { status: 'FAILED'; error: string } | { status: 'COMPLETED' };

/** Where each setting lives in the state store's settings (JSON values). */
const KEY = {
  defaults: 'progress/defaults',
  organization: (orgId: string) => `progress/organization/${orgId}`,
  prediction: (predictionId: string) => `progress/prediction/${predictionId}`,
  forcedNext: (orgId: string) => `progress/forced-next/${orgId}`,
  forcedOn: (predictionId: string) => `progress/forced-on/${predictionId}`,
};

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
    await this.state.settings.set(KEY.defaults, JSON.stringify(delays));
  }

  async setOrganizationDelays(orgId: string, delays: Delays | undefined): Promise<void> {
    await this.put(KEY.organization(orgId), delays);
  }

  /** The next prediction submitted by the organization ends with this outcome. */
  async forceNextOutcome(orgId: string, outcome: ForcedOutcome): Promise<void> {
    await this.state.transaction(async () => {
      await this.state.organizations.lock(orgId);
      const queue = (await this.read<ForcedOutcome[]>(KEY.forcedNext(orgId))) ?? [];
      queue.push(outcome);
      await this.put(KEY.forcedNext(orgId), queue);
    });
  }

  /** This prediction (if it has not finished yet) ends with this outcome. */
  async forceOutcomeOf(predictionId: string, outcome: ForcedOutcome): Promise<void> {
    await this.put(KEY.forcedOn(predictionId), outcome);
  }

  /** This prediction's stages from now on; undefined goes back to its organization's. */
  async setPredictionDelays(predictionId: string, delays: Delays | undefined): Promise<void> {
    await this.put(KEY.prediction(predictionId), delays);
  }

  async delaysOf(orgId?: string, predictionId?: string): Promise<Delays> {
    const own = predictionId === undefined ? undefined : await this.read<Delays>(KEY.prediction(predictionId));
    if (own) return own;
    const organization = orgId ? await this.read<Delays>(KEY.organization(orgId)) : undefined;
    return organization ?? (await this.read<Delays>(KEY.defaults)) ?? this.configured;
  }

  delaysFor(prediction: PredictionRecord): Promise<Delays> {
    return this.delaysOf(prediction.organizationId, prediction.id);
  }

  /** Consumed once, when a prediction that was forced after it started publishes its outcome. */
  takeOutcomeForcedOn(predictionId: string): Promise<ForcedOutcome | undefined> {
    return this.state.transaction(async () => {
      const own = await this.read<ForcedOutcome>(KEY.forcedOn(predictionId));
      if (own) await this.state.settings.delete(KEY.forcedOn(predictionId));
      return own;
    });
  }

  /** Consumed once, when the prediction starts: its own forced outcome first, then its organization's next. */
  takeForcedOutcome(prediction: PredictionRecord): Promise<ForcedOutcome | undefined> {
    return this.state.transaction(async () => {
      await this.state.organizations.lock(prediction.organizationId);
      const own = await this.read<ForcedOutcome>(KEY.forcedOn(prediction.id));
      if (own) {
        await this.state.settings.delete(KEY.forcedOn(prediction.id));
        return own;
      }
      const queue = await this.read<ForcedOutcome[]>(KEY.forcedNext(prediction.organizationId));
      const next = queue?.shift();
      if (next) await this.put(KEY.forcedNext(prediction.organizationId), queue!.length ? queue : undefined);
      return next;
    });
  }

  async clear(orgId?: string): Promise<void> {
    if (orgId === undefined) {
      await this.state.settings.deleteWithPrefix('progress/');
    } else {
      await this.state.settings.delete(KEY.organization(orgId));
      await this.state.settings.delete(KEY.forcedNext(orgId));
    }
  }

  private async read<T>(key: string): Promise<T | undefined> {
    const value = await this.state.settings.get(key);
    return value === undefined ? undefined : (JSON.parse(value) as T);
  }

  private async put(key: string, value: unknown): Promise<void> {
    if (value === undefined) await this.state.settings.delete(key);
    else await this.state.settings.set(key, JSON.stringify(value));
  }
}
