import { DomainError } from '../errors.js';
import { underOrganizationLock } from '../organizations.js';
import type { StateStore } from '../state.js';
import type { PredictionRecord } from './prediction-record.js';
import type { Delays, DelayScope, ForcedOutcome, RunPlan } from './progress-record.js';

export type { Delays, ForcedOutcome };

/** Outcomes an organization may have queued for its next predictions (openapi/mock-control.yaml). */
export const MAX_QUEUED_OUTCOMES = 1000;

/**
 * How predictions progress: the configured delays, overridden per organization from the control
 * plane, and outcomes forced for the next prediction of an organization. Kept in the state store,
 * so a setting made through one instance holds for predictions any instance runs; an outcome is
 * taken under its organization's lock, so it is consumed once.
 */
export class ProgressControls {
  constructor(
    private readonly state: StateStore,
    private readonly configured: Delays,
  ) {}

  /**
   * The delays of the mock's defaults (subject ''), of an organization, or of one prediction (read
   * when its run begins next); undefined drops the scope's own, back to the one above it.
   */
  async setDelays(scope: DelayScope, subjectId: string, delays: Delays | undefined): Promise<void> {
    if (delays === undefined) await this.state.progressDelays.delete(scope, subjectId);
    else await this.state.progressDelays.set(scope, subjectId, delays);
  }

  /**
   * The next prediction submitted by the organization ends with this outcome. The queue is one
   * value read and written whole at each change, and an organization's own key may add to it: with
   * no bound, a loop of 1 MB errors grew the server by 12 MB a call (1.6 GB after 120) and made
   * each call slower than the last.
   */
  async forceNextOutcome(orgId: string, outcome: ForcedOutcome): Promise<void> {
    await underOrganizationLock(this.state, orgId, async () => {
      const queue = (await this.state.forcedOutcomes.get('organization', orgId)) ?? [];
      if (queue.length >= MAX_QUEUED_OUTCOMES)
        throw new DomainError(
          'invalid_state',
          `The organization already has ${MAX_QUEUED_OUTCOMES} outcomes queued for its next predictions, the most it may: submit predictions to take them, or reset the organization.`,
        );
      await this.state.forcedOutcomes.set('organization', orgId, [...queue, outcome]);
    });
  }

  async delaysOf(orgId?: string, predictionId?: string): Promise<Delays> {
    const delays = this.state.progressDelays;
    const own = predictionId === undefined ? undefined : await delays.get('prediction', predictionId);
    if (own) return own;
    const organization = orgId ? await delays.get('organization', orgId) : undefined;
    return organization ?? (await delays.get('defaults', '')) ?? this.configured;
  }

  /**
   * What a run of this prediction follows, read once when it begins: its delays, and its
   * organization's next forced outcome, taken from the queue under the organization's lock so that
   * two runs never take the same one.
   */
  planFor(prediction: PredictionRecord): Promise<RunPlan> {
    const orgId = prediction.organizationId;
    return underOrganizationLock(this.state, orgId, async () => {
      const [forced, ...rest] = (await this.state.forcedOutcomes.get('organization', orgId)) ?? [];
      if (forced) await this.state.forcedOutcomes.set('organization', orgId, rest);
      return { ...(await this.delaysOf(orgId, prediction.id)), forced };
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
}
