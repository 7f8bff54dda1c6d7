import { notFound } from '../domain/errors.js';
import type { Organization } from '../domain/organizations.js';
import type { PredictionRecord } from '../domain/predictions/prediction-record.js';
import type { Delays, ProgressControls } from '../domain/predictions/progress-controls.js';

/** Who a progress setting is for: one prediction, one organization, or (neither) every prediction. */
export interface ProgressScope {
  organizationId?: string;
  predictionId?: string;
  /** An organization's own test helpers: a prediction of any other organization is not found. */
  ownerId?: string;
}

export interface ProgressSetting {
  /** The prediction's organization when a prediction was named. */
  organizationId: string | null;
  predictionId?: string;
  delays: Delays;
}

/** What the progress and outcome controls look up to resolve a scope. */
export interface ScopeLookup {
  prediction(id: string): Promise<PredictionRecord | undefined>;
  /** Throws not_found for an unknown organization. */
  organization(id: string): Promise<Organization>;
}

/**
 * `PUT /__mock/predictions/progress`: the stages' delays and the polls a result is held for, for
 * a prediction, an organization or everyone. Fields left out keep their current value; a request
 * that names only a scope drops that scope's own setting (back to the one above it).
 */
export class ProgressControl {
  constructor(
    private readonly progress: ProgressControls,
    private readonly lookup: ScopeLookup,
  ) {}

  async set(scope: ProgressScope, change: Partial<Delays>): Promise<ProgressSetting> {
    const { organizationId, predictionId } = await resolveScope(this.lookup, scope);
    const current = await this.progress.delaysOf(organizationId, predictionId);
    const onlyScope =
      change.startDelayMs === undefined &&
      change.runDelayMs === undefined &&
      change.completeAfterPolls === undefined;
    const next = onlyScope
      ? undefined
      : {
          startDelayMs: change.startDelayMs ?? current.startDelayMs,
          runDelayMs: change.runDelayMs ?? current.runDelayMs,
          completeAfterPolls: change.completeAfterPolls ?? current.completeAfterPolls,
        };
    if (predictionId) await this.progress.setDelays('prediction', predictionId, next);
    else if (organizationId) await this.progress.setDelays('organization', organizationId, next);
    else await this.progress.setDelays('defaults', '', next ?? current);
    return {
      organizationId: organizationId ?? null,
      ...(predictionId ? { predictionId } : {}),
      delays: await this.progress.delaysOf(organizationId, predictionId),
    };
  }
}

/** A named prediction decides the organization; an unknown prediction or organization is not found. */
export async function resolveScope(lookup: ScopeLookup, scope: ProgressScope): Promise<ProgressScope> {
  const prediction = scope.predictionId ? await lookup.prediction(scope.predictionId) : undefined;
  if (scope.predictionId && !prediction) throw notFound('Prediction');
  if (prediction && scope.ownerId !== undefined && prediction.organizationId !== scope.ownerId)
    throw notFound('Prediction');
  const organizationId = prediction?.organizationId ?? scope.organizationId ?? scope.ownerId;
  if (organizationId) await lookup.organization(organizationId);
  return { organizationId, predictionId: scope.predictionId };
}
