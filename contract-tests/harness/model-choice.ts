import { need } from './steps.js';
import type { ApiClient } from './api-client.js';
import type { MeaningfulSample } from './sample-images.js';
import type { Model } from '../../openapi/generated/client/types.gen.js';

/** What a sample needs from the model that segments it. */
export interface SampleNeeds {
  look: MeaningfulSample['look'];
  /** The sample has cells cut by the border, and the check wants them in the result. */
  keepsBorderCells?: boolean;
}

/**
 * How well a model's own words (name and description from GET /models) fit a sample: the suite
 * picks a model by what it is for, never by list order. Positive: a fit; 0 or less: no fit.
 */
export function fitScore(model: Model, needs: SampleNeeds): number {
  const text = `${model.name} ${model.description ?? ''}`.toLowerCase();
  let score = 0;
  if (needs.look === 'bright-on-dark') {
    if (/\bdark (cells?|nuclei|objects?) on (a )?(bright|light)|bright-?field/.test(text)) score -= 10;
    if (/\bbright (cells?|nuclei|objects?|spots?)? ?on (a )?dark/.test(text)) score += 4;
    if (/fluoresc|dapi|hoechst/.test(text)) score += 2;
  }
  if (needs.keepsBorderCells) {
    if (/border[^.;]*\b(kept|keeps?|included)\b|\bkeeps? [^.;]*border/.test(text)) score += 2;
    if (/border[^.;]*\b(dropped|drops?|excluded|removed)\b|\b(drops?|excludes?) [^.;]*border/.test(text))
      score -= 3;
  }
  if (model.kind === 'base') score += 0.5;
  return score;
}

const listed = new WeakMap<ApiClient, Promise<Model[]>>();

async function modelsOf(client: ApiClient): Promise<Model[]> {
  let models = listed.get(client);
  if (!models) {
    models = client.call<Model[]>('listModels').then((response) => need(response, 200).body);
    listed.set(client, models);
  }
  return models;
}

/**
 * The model that fits the sample, by what GET /models says each is for. CONTRACT_MODEL (an id or
 * a name) overrides the choice for a target whose descriptions say too little.
 */
export async function modelFor(client: ApiClient, needs: SampleNeeds): Promise<Model> {
  const models = await modelsOf(client);
  const forced = process.env.CONTRACT_MODEL;
  if (forced) {
    const model = models.find((m) => m.id === forced || m.name === forced);
    if (!model) throw new Error(`CONTRACT_MODEL '${forced}' is not among the models GET /models lists`);
    return model;
  }
  const ranked = models
    .map((model) => ({ model, score: fitScore(model, needs) }))
    .sort((a, b) => b.score - a.score);
  if (!ranked.length || ranked[0].score <= 0)
    throw new Error(
      `no model listed by GET /models says it segments ${needs.look.replace(/-/g, ' ')}` +
        `${needs.keepsBorderCells ? ' keeping cells cut by the border' : ''}; set CONTRACT_MODEL to choose one`,
    );
  return ranked[0].model;
}

/** The id of the model that fits the suite's bright-on-dark samples. */
export async function fittingModelId(client: ApiClient, keepsBorderCells = false): Promise<string> {
  return (await modelFor(client, { look: 'bright-on-dark', keepsBorderCells })).id;
}

/**
 * The model of a second run on an image the first model segmented: CONTRACT_MODEL's where it is
 * set (the one the user knows works on the target), else another of the first's kind, another
 * base model, any other, or the first again (a run after the first finished is a fresh one).
 */
export function secondModelId(models: Model[], firstId: string, forced?: string): string {
  const chosen = forced && models.find((m) => m.id === forced || m.name === forced);
  if (chosen) return chosen.id;
  const kind = models.find((m) => m.id === firstId)?.kind;
  const others = models.filter((m) => m.id !== firstId);
  return (
    (others.find((m) => m.kind === kind) ?? others.find((m) => m.kind === 'base') ?? others[0])?.id ?? firstId
  );
}
