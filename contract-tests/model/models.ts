import { compare, isObject, type Exchange, type Finding } from './exchange.js';
import type { Organization, World } from './world.js';

/**
 * GET /models: the shared public base models plus the organization's custom ones. Nothing the
 * interface offers adds or removes a model, so every list an organization reads holds the same
 * models (in any order: the interface states none, and the document only that base models come
 * first, which predictions.check.ts holds), and two organizations list the same base models.
 */
const S = {
  same: 'GET /models lists the models available to the organization (nothing in the interface changes them)',
  base: 'Models available to an organization: the shared public base models plus custom models',
  custom:
    'Models available to an organization: the shared public base models plus custom models trained in the dashboard; kind: a shared public base model, or a custom model of the organization',
};

/** A list of models in the order of their ids, so two lists compare by what they hold. */
const inIdOrder = <T extends { id: string }>(models: T[]): T[] =>
  [...models].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

export function observeModels(world: World, org: Organization, x: Exchange): Finding[] {
  const findings: Finding[] = [];
  if (x.status !== 200 || !Array.isArray(x.body)) return findings;
  const listed = x.body
    .filter(isObject)
    .map((m) => ({ id: String(m.id), name: String(m.name), kind: String(m.kind) }));
  if (org.customModels && !org.opaque) {
    const byId = new Map(listed.map((m) => [m.id, m]));
    for (const custom of org.customModels)
      compare(
        findings,
        S.custom,
        `listModels: custom model ${custom.id}`,
        { id: custom.id, name: custom.name, kind: 'custom' },
        byId.get(custom.id) ?? null,
      );
    compare(
      findings,
      S.custom,
      'listModels: the custom models',
      org.customModels.map((m) => m.id).sort(),
      listed
        .filter((m) => m.kind !== 'base')
        .map((m) => m.id)
        .sort(),
    );
  }
  // the same models each time, in whatever order: the interface states none (a target may list
  // the models last used first)
  if (org.models)
    compare(findings, S.same, 'listModels: the models', inIdOrder(org.models), inIdOrder(listed));
  else if (!findings.length) org.models = listed; // a list already found wrong is no one to learn from
  const base = (models: typeof listed) =>
    models
      .filter((m) => m.kind === 'base')
      .map((m) => m.id)
      .sort();
  for (const other of world.organizations.values())
    if (other !== org && other.models && !other.opaque)
      compare(
        findings,
        S.base,
        `listModels: base models, against organization ${other.ref}'s`,
        base(other.models),
        base(listed),
      );
  return findings;
}
