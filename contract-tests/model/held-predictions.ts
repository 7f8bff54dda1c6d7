import { isObject, type Exchange } from './exchange.js';
import { organization, type Organization, type PredictionRecord, type World } from './world.js';

/**
 * Predictions the mock's control plane holds in flight (`complete_after_polls`: the outcome is
 * published by the Nth poll, not before), so the model knows them SUBMITTED or STARTED for certain
 * until then, where otherwise a prediction may have finished unseen. Set for an organization, the
 * hold is read by each run as it begins; a run begins after its POST /predict, so a prediction
 * submitted after the setting's answer is held by it. Anything that may change a run's hold since
 * (another setting of its organization or of the prediction, a forced outcome) drops the knowledge.
 */
export function learnProgress(world: World, x: Exchange): void {
  const answer = isObject(x.body) ? x.body : {};
  const orgId = typeof answer.organization_id === 'string' ? answer.organization_id : undefined;
  const polls = answer.complete_after_polls;
  if (x.status !== 200) return;
  if (orgId === undefined) return forgetHolds(world);
  const org = organization(world, `org ${orgId}`);
  forgetHolds(world, org);
  if (answer.prediction_id === undefined)
    org.heldPolls = typeof polls === 'number' && polls > 0 ? polls : undefined;
}

/** What a forced outcome, or a setting the model cannot place, leaves known: no hold (of `org`, or anyone's). */
export function forgetHolds(world: World, org?: Organization): void {
  for (const o of org ? [org] : world.organizations.values()) o.heldPolls = undefined;
  for (const p of world.predictions.values()) if (!org || p.org === org.ref) p.heldPolls = undefined;
}

/**
 * Whether the prediction is surely still SUBMITTED or STARTED: held until a poll it has not had
 * (the polls answered and any of the organization's requests still on their way counted).
 */
export const surelyInFlight = (org: Organization, p: PredictionRecord): boolean =>
  !p.outcome && p.heldPolls !== undefined && (p.polls ?? 0) + org.pending < p.heldPolls;
