import { compare, isObject, type Exchange, type Finding, type Json } from './exchange.js';
import { forgetHolds, learnProgress } from './held-predictions.js';
import { organization, type Organization, type World } from './world.js';

/**
 * Organizations, their plans and usage. The interface shows neither the counters nor a way to
 * read them; the mock's control plane does (an organization list with `usage`), and an
 * organization made through it with a plan is one whose counters only this check moves, so the
 * oracle predicts them exactly. Anything else done through the control plane (a fault, a plan or
 * usage set, a clock moved, a reset) puts the organization it names out of the model's reach.
 */

/** Control-plane operations that change nothing the interface's answers depend on. */
const HARMLESS = new Set([
  'mockHealth',
  'mockControlDocument',
  'mockListOrganizations',
  'mockListModels',
  'mockJournal',
  'mockGetSnapshot',
  'mockListImages',
  'mockImageThumbnail',
  'mockExport',
  'mockGetClock',
  'mockListFaults',
  'mockOrgGetPlan',
  'mockOrgGetClock',
  'mockOrgJournal',
  'mockOrgGetSnapshot',
  // How fast and how a prediction ends is not predicted anyway: only that it ends.
  'mockSetProgress',
  'mockOrgSetProgress',
  'mockForceOutcome',
  'mockOrgForceOutcome',
]);

export const isControlPlane = (x: Exchange): boolean =>
  x.operationId.startsWith('mock') || new URL(x.url).pathname.startsWith('/__mock');

/** Registers the target's own keys: each role is an organization of its own. */
export function knowKeys(world: World, keys: Record<string, string | undefined>): void {
  for (const [role, key] of Object.entries(keys)) if (key && !world.keys.has(key)) world.keys.set(key, role);
}

export const organizationOf = (world: World, key: string | null | undefined): Organization | undefined => {
  const ref = typeof key === 'string' ? world.keys.get(key) : undefined;
  return ref === undefined ? undefined : organization(world, ref);
};

/**
 * A key the oracle does not know that is one of its known keys with its case changed, one
 * character changed, or characters added at its end or cut from it: no organization owns it (keys
 * are random, so no real key sits one character from another or starts another), and "a missing
 * or invalid key yields 401" (a key is compared whole, not by a prefix or a fixed width). Answers
 * the known key it was made from.
 */
export function forgedFrom(world: World, key: string | null | undefined): string | undefined {
  if (typeof key !== 'string' || world.keys.has(key)) return undefined;
  for (const known of world.keys.keys()) {
    if (key.length > 0 && (key.startsWith(known) || known.startsWith(key))) return known;
    if (known.length !== key.length) continue;
    if (known.toLowerCase() === key.toLowerCase()) return known;
    let differing = 0;
    for (let i = 0; i < key.length && differing < 2; i++) if (key[i] !== known[i]) differing++;
    if (differing === 1) return known;
  }
  return undefined;
}

const sentJson = (x: Exchange): Json | undefined => {
  if (isObject(x.sent)) return x.sent;
  return undefined;
};

export function observeControlPlane(world: World, x: Exchange): Finding[] {
  const path = new URL(x.url).pathname;
  const sent = sentJson(x);
  if (x.status === 200 && (x.operationId === 'mockCreateOrganization' || path === '/__mock/organizations')) {
    if (x.method === 'POST') return (registerOrganization(world, sent, x.body), []);
  }
  if (x.operationId === 'mockListOrganizations' && x.status === 200) return predictUsage(world, x.body);
  const keyed = /^\/__mock\/organizations\/([^/]+)\/keys$/.exec(path)?.[1];
  if (keyed && x.method === 'POST' && x.status === 200 && addKey(world, keyed, x.body)) return [];
  const revoked = /^\/__mock\/organizations\/([^/]+)\/keys\/([^/]+)$/.exec(path);
  if (revoked && x.method === 'DELETE' && x.status === 200 && revokeKey(world, revoked[1], revoked[2]))
    return [];
  if (x.operationId === 'mockSetProgress' || x.operationId === 'mockOrgSetProgress')
    return (learnProgress(world, x), []);
  if (x.operationId === 'mockForceOutcome' || x.operationId === 'mockOrgForceOutcome') forgetHolds(world);
  const added = /^\/__mock\/organizations\/([^/]+)\/models$/.exec(path)?.[1];
  if (added && x.method === 'POST' && x.status === 200) return (addCustomModel(world, added, x.body), []);
  const planned = /^\/__mock\/organizations\/([^/]+)\/plan$/.exec(path)?.[1];
  if (planned && x.method === 'PUT' && x.status === 200 && setPlan(world, planned, sent)) return [];
  if (HARMLESS.has(x.operationId) || x.method === 'GET') return [];
  // Anything else: the organization it names (in the body or the path) leaves the model's reach;
  // one that names none reaches every organization.
  const named =
    (typeof sent?.organization_id === 'string' ? sent.organization_id : undefined) ??
    /\/__mock\/organizations\/([^/]+)/.exec(path)?.[1];
  if (named) organization(world, `org ${named}`).opaque = true;
  else for (const org of world.organizations.values()) org.opaque = true;
  return [];
}

/**
 * A key added to an organization made here: "a key is scoped to the organization that owns it",
 * so the new key is that organization's as much as its first, every resource and model alike.
 * Answers false for an organization the model does not follow (a seeded one, named here by an id
 * the oracle does not know it by), which then leaves its reach.
 */
function addKey(world: World, id: string, answer: unknown): boolean {
  const org = world.organizations.get(`org ${id}`);
  if (!org || !isObject(answer) || typeof answer.api_key !== 'string') return false;
  world.keys.set(answer.api_key, org.ref);
  if (typeof answer.id === 'string') (world.keyIds ??= new Map()).set(answer.id, answer.api_key);
  return true;
}

/**
 * A key revoked by the operator (mock-control.yaml, mockRevokeApiKey: "the next request that
 * presents it answers 401"; rotation is add a key, move the clients, revoke the old one): that key
 * is invalid from now on, and the organization's other keys stay what they were, its own.
 * Answers false for a key the model cannot name (its id never seen beside it), which leaves the
 * organization out of the model's reach.
 */
function revokeKey(world: World, orgId: string, keyId: string): boolean {
  const key = world.keyIds?.get(keyId);
  const org = world.organizations.get(`org ${orgId}`);
  if (!org || key === undefined || world.keys.get(key) !== org.ref) return false;
  world.keys.delete(key);
  (world.revokedKeys ??= new Set()).add(key);
  org.keyRevoked = true;
  return true;
}

/**
 * The id of each key an organization was made with: its answer lists the keys by id and prefix
 * beside the keys in clear, so a key is the one whose prefix it starts with (when exactly one is).
 */
function learnKeyIds(world: World, listed: unknown, keys: string[]): void {
  const ids = (Array.isArray(listed) ? listed.filter(isObject) : []).filter(
    (k): k is { id: string; prefix: string } => typeof k.id === 'string' && typeof k.prefix === 'string',
  );
  for (const key of keys) {
    const named = ids.filter((k) => k.prefix.length > 0 && key.startsWith(k.prefix));
    if (named.length === 1) (world.keyIds ??= new Map()).set(named[0].id, key);
  }
}

/** A custom model added to an organization: its list holds it from now on, as a custom model. */
function addCustomModel(world: World, id: string, answer: unknown): void {
  const org = organization(world, `org ${id}`);
  if (!isObject(answer) || typeof answer.id !== 'string' || typeof answer.name !== 'string') {
    org.customModels = undefined;
    return;
  }
  org.customModels?.push({ id: answer.id, name: answer.name });
  org.models = undefined; // the list changed: its order is learnt again from the next read
}

/**
 * A plan changed by the operator: the caps are the new ones from the next request on (a refusal
 * holds only while a cap is reached). Answers false when the caps sent are not both known.
 */
function setPlan(world: World, id: string, plan: Json | undefined): boolean {
  const org = world.organizations.get(`org ${id}`);
  if (!org?.counters || org.pending > 0) return false;
  if (typeof plan?.storage_cap_images !== 'number' || typeof plan.monthly_analysis_cap !== 'number')
    return false;
  org.counters.storageCap = plan.storage_cap_images;
  org.counters.analysisCap = plan.monthly_analysis_cap;
  return true;
}

function registerOrganization(world: World, sent: Json | undefined, answer: unknown): void {
  if (!isObject(answer) || typeof answer.id !== 'string') return;
  const org = organization(world, `org ${answer.id}`);
  org.customModels = []; // a new organization has trained nothing yet
  const keys = (Array.isArray(answer.api_keys) ? answer.api_keys : []).filter(
    (key): key is string => typeof key === 'string',
  );
  for (const key of keys) world.keys.set(key, org.ref);
  learnKeyIds(world, answer.keys, keys);
  const plan = isObject(sent?.plan) ? sent.plan : undefined;
  if (typeof plan?.storage_cap_images === 'number' && typeof plan.monthly_analysis_cap === 'number')
    org.counters = {
      storageCap: plan.storage_cap_images,
      analysisCap: plan.monthly_analysis_cap,
      images: 0,
      analyses: 0,
    };
}

const USAGE_SENTENCE =
  'Image storage cap … counted in images … Failed or aborted images still count until deleted; DELETE … slot freed; each prediction counts';

function predictUsage(world: World, listed: unknown): Finding[] {
  const findings: Finding[] = [];
  for (const entry of Array.isArray(listed) ? listed : []) {
    if (!isObject(entry) || typeof entry.id !== 'string' || !isObject(entry.usage)) continue;
    const org = world.organizations.get(`org ${entry.id}`);
    if (!org?.counters || org.opaque || org.pending > 0) continue;
    const subject = `mockListOrganizations: usage of organization ${entry.id}`;
    compare(findings, USAGE_SENTENCE, `${subject}.images`, org.counters.images, entry.usage.images);
    compare(
      findings,
      USAGE_SENTENCE,
      `${subject}.analyses_this_month`,
      org.counters.analyses,
      entry.usage.analyses_this_month,
    );
  }
  return findings;
}
