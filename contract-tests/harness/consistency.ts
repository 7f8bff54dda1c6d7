import { canonicalId, CLOCK_SKEW_MS } from '../model/exchange.js';

/**
 * Checks that compare, not only validate: every answer about a resource is held against
 * what the client sent to create it (echoed fields), against the earlier answers about the same
 * resource in the same check (fields that never change once set must agree, fields that move with
 * events only move forward), and against time (a later timestamp of an object is not before its
 * created_at, and no timestamp is in the future, or before the request that created it).
 */

type Json = Record<string, unknown>;

type Kind = 'image' | 'prediction' | 'share' | 'model';

/** Fields that never change once they have a value (null and absent are no value yet). */
const SETTLED: Record<Kind, string[]> = {
  image: ['name', 'size', 'image_type', 'created_at', 'shape', 'processed_at', 'upload_error'],
  prediction: ['image_id', 'model_id', 'created_at', 'segmentation_id', 'cell_count', 'error'],
  share: ['segmentation_id', 'access', 'role', 'url', 'created_at', 'revoked_at'],
  model: ['name', 'kind', 'version'],
};

/** Settled fields a later event may clear (a revoked share's link, where a target drops it). */
const MAY_CLEAR = ['url'];

/** Fields that move with events, in the order they may take (a value never comes back after a later one). */
const FORWARD: Record<string, string[]> = {
  upload_status: ['uploading', 'processing', 'ready', 'failed'],
  status: ['SUBMITTED', 'STARTED', 'COMPLETED', 'FAILED'],
};
/** Numbers that only grow. */
const GROWING = ['view_count'];
/** Timestamps that come after the object's created_at. */
const AFTER_CREATION = ['processed_at', 'revoked_at', 'last_viewed_at'];
/** The field whose value names the object's state: while it stays, no settled field appears or goes. */
const STATE: Record<Kind, string | undefined> = {
  image: 'upload_status',
  prediction: 'status',
  share: 'revoked_at',
  model: undefined,
};
/** Fields that move with one event only: while `count` stays, `moves` stays too (a view sets both). */
const MOVES_WITH: Array<{ moves: string; count: string }> = [
  { moves: 'last_viewed_at', count: 'view_count' },
];
/** The path parameter an operation reads one object by, and the body field that names the object. */
const PATH_ID: Record<string, { param: string; field: string }> = {
  getUpload: { param: 'image_id', field: 'id' },
  getImage: { param: 'image_id', field: 'id' },
  getPrediction: { param: 'prediction_id', field: 'prediction_id' },
  getShare: { param: 'share_id', field: 'id' },
  revokeShare: { param: 'share_id', field: 'id' },
};

const isObject = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The resources an answer describes, by kind and id. */
function resourcesIn(operationId: string, body: unknown): Array<{ kind: Kind; id: string; fields: Json }> {
  if (!isObject(body) && !Array.isArray(body)) return [];
  const one = (kind: Kind, fields: unknown, idField = 'id') =>
    isObject(fields) && typeof fields[idField] === 'string'
      ? [{ kind, id: fields[idField] as string, fields }]
      : [];
  switch (operationId) {
    case 'uploadImage':
      return one('image', (body as Json).image);
    case 'createImage':
    case 'getUpload':
    case 'getImage':
      return one('image', body);
    case 'getPrediction':
      return one('prediction', body, 'prediction_id');
    case 'createShare':
    case 'getShare':
    case 'revokeShare':
      return one('share', body);
    case 'listModels':
      return (Array.isArray(body) ? body : []).flatMap((m) => one('model', m));
    default:
      return [];
  }
}

/** What the client sent that an answer must echo, by operation: the fields of the created resource. */
function echoed(operationId: string, sent: unknown): Json | undefined {
  if (!isObject(sent)) return undefined;
  // an id is echoed in its canonical lower-case form, whatever case it was sent in and with no
  // urn:uuid: prefix (document, x-http-conventions.ids)
  const canonical = (n: string) => {
    const value = sent[n];
    return n.endsWith('_id') && typeof value === 'string' ? canonicalId(value) : value;
  };
  const pick = (...names: string[]) =>
    Object.fromEntries(names.filter((n) => sent[n] !== undefined).map((n) => [n, canonical(n)]));
  switch (operationId) {
    case 'uploadImage':
      return pick('name', 'size');
    case 'createImage':
      return pick('name', 'size', 'image_type', 'metadata');
    case 'createPrediction':
      return pick('image_id', 'model_id');
    case 'createShare':
      return pick('segmentation_id');
    default:
      return undefined;
  }
}

const CREATES: Record<string, { kind: Kind; id: (body: Json) => unknown }> = {
  uploadImage: { kind: 'image', id: (b) => (isObject(b.image) ? b.image.id : undefined) },
  createImage: { kind: 'image', id: (b) => b.id },
  createPrediction: { kind: 'prediction', id: (b) => b.prediction_id },
  createShare: { kind: 'share', id: (b) => b.id },
};

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** One check's memory of the resources its answers described. */
export class ConsistencyLedger {
  private readonly first = new Map<string, Json>();
  private readonly latest = new Map<string, Json>();
  private readonly sent = new Map<string, Json>();
  /** When the request that created each object left the client: no later answer dates it earlier. */
  private readonly createdAfter = new Map<string, number>();

  /**
   * Holds one 2xx JSON answer against what came before; answers a line per disagreement. `sent` is
   * the JSON body of the request, `sentAt` and `receivedAt` the client's clock around it, `params`
   * the path parameters (an answer about one object names the object it was asked for).
   */
  observe(
    operationId: string,
    sent: unknown,
    body: unknown,
    sentAt: number,
    receivedAt: number,
    params: Record<string, string> = {},
  ): string[] {
    const problems: string[] = [];
    const label = (kind: string, id: string, field: string) => `${operationId}: ${kind} ${id} ${field}`;
    const byPath = PATH_ID[operationId];
    if (byPath && params[byPath.param] !== undefined && isObject(body)) {
      const named = body[byPath.field];
      if (typeof named === 'string' && named.toLowerCase() !== canonicalId(params[byPath.param]))
        problems.push(
          `${operationId}: asked for ${byPath.param} ${params[byPath.param]}, the answer's ${byPath.field} is ${named}`,
        );
    }
    const creates = CREATES[operationId];
    const echo = echoed(operationId, sent);
    if (creates && isObject(body)) {
      const id = creates.id(body);
      // every answer about it echoes what the image schema keeps; the creating answer the rest too
      if (typeof id === 'string' && echo) {
        const { metadata, image_type, ...kept } = echo;
        const created = resourcesIn(operationId, body)[0]?.fields ?? body;
        for (const [field, value] of Object.entries({ metadata, image_type }))
          if (value !== undefined && !same(created[field], value))
            problems.push(
              `${operationId}: ${creates.kind} ${id} ${field} is ${JSON.stringify(created[field])}, the request sent ${JSON.stringify(value)}`,
            );
        this.sent.set(`${creates.kind} ${id}`, kept);
      }
      if (typeof id === 'string') this.createdAfter.set(`${creates.kind} ${id}`, sentAt);
    }
    for (const { kind, id, fields } of resourcesIn(operationId, body)) {
      const key = `${kind} ${id}`;
      for (const [field, value] of Object.entries(this.sent.get(key) ?? {}))
        if (!same(fields[field], value))
          problems.push(
            `${label(kind, id, field)} is ${JSON.stringify(fields[field])}, the request sent ${JSON.stringify(value)}`,
          );
      const first = this.first.get(key) ?? {};
      for (const field of SETTLED[kind]) {
        if (first[field] === undefined || first[field] === null) continue;
        if (MAY_CLEAR.includes(field) && fields[field] === null) continue;
        if (!same(fields[field], first[field]))
          problems.push(
            `${label(kind, id, field)} is ${JSON.stringify(fields[field])}, an earlier answer said ${JSON.stringify(first[field])}`,
          );
      }
      const before = this.latest.get(key);
      if (before) {
        problems.push(...sameStateProblems(kind, before, fields, (f) => label(kind, id, f)));
        for (const [field, order] of Object.entries(FORWARD)) {
          const [was, now] = [order.indexOf(before[field] as string), order.indexOf(fields[field] as string)];
          if (was >= 0 && now >= 0 && now < was)
            problems.push(
              `${label(kind, id, field)} went back from ${String(before[field])} to ${String(fields[field])}`,
            );
        }
        for (const field of GROWING)
          if (
            typeof before[field] === 'number' &&
            typeof fields[field] === 'number' &&
            fields[field] < before[field]
          )
            problems.push(`${label(kind, id, field)} went down from ${before[field]} to ${fields[field]}`);
      }
      problems.push(
        ...timeProblems(
          fields,
          (f) => label(kind, id, f),
          receivedAt,
          creates?.kind === kind ? sentAt : this.createdAfter.get(key),
        ),
      );
      for (const field of SETTLED[kind])
        if (fields[field] !== undefined && fields[field] !== null) first[field] ??= fields[field];
      this.first.set(key, first);
      this.latest.set(key, fields);
    }
    return problems;
  }
}

/**
 * Two answers about an object in the same state describe the same record: a settled field does not
 * appear or go while the state stays (an image ready in one answer has the processed_at of the next),
 * and a field that moves with one event (a share's last view) stays while that event's count stays.
 */
function sameStateProblems(kind: Kind, before: Json, now: Json, label: (field: string) => string): string[] {
  const problems: string[] = [];
  const has = (fields: Json, field: string) => fields[field] !== undefined && fields[field] !== null;
  const state = STATE[kind];
  if (state && same(before[state] ?? null, now[state] ?? null))
    for (const field of SETTLED[kind].filter((f) => f !== state && !MAY_CLEAR.includes(f)))
      if (has(before, field) !== has(now, field))
        problems.push(
          `${label(field)} is ${JSON.stringify(now[field] ?? null)}, an earlier answer in the same ${state} (${String(now[state] ?? null)}) said ${JSON.stringify(before[field] ?? null)}`,
        );
  for (const { moves, count } of MOVES_WITH)
    if (
      typeof now[count] === 'number' &&
      now[count] === before[count] &&
      !same(now[moves] ?? null, before[moves] ?? null)
    )
      problems.push(
        `${label(moves)} is ${JSON.stringify(now[moves] ?? null)}, an earlier answer with the same ${count} (${String(now[count])}) said ${JSON.stringify(before[moves] ?? null)}`,
      );
  return problems;
}

function timeProblems(
  fields: Json,
  label: (field: string) => string,
  receivedAt: number,
  createdAfter?: number,
): string[] {
  const problems: string[] = [];
  const at = (field: string) =>
    typeof fields[field] === 'string' ? Date.parse(fields[field] as string) : NaN;
  const created = at('created_at');
  for (const field of Object.keys(fields).filter((f) => f.endsWith('_at'))) {
    const t = at(field);
    if (Number.isNaN(t)) continue;
    if (t > receivedAt + CLOCK_SKEW_MS)
      problems.push(
        `${label(field)} ${String(fields[field])} is in the future (answered at ${new Date(receivedAt).toISOString()})`,
      );
    if (AFTER_CREATION.includes(field) && !Number.isNaN(created) && t < created)
      problems.push(
        `${label(field)} ${String(fields[field])} is before its created_at ${String(fields.created_at)}`,
      );
  }
  if (createdAfter !== undefined && !Number.isNaN(created) && created < createdAfter - CLOCK_SKEW_MS)
    problems.push(
      `${label('created_at')} ${String(fields.created_at)} is before the request that created it (sent at ${new Date(createdAfter).toISOString()})`,
    );
  return problems;
}
