import type { Answer, Exchange, ProxyState, SeedOrganization } from './regression.js';

/** Small tools the regressions share: reading the route, the caller, and JSON bodies. */

export function pathname(exchange: Exchange): string {
  return new URL(exchange.path, 'http://proxy').pathname;
}

/** The captures of `pattern` on the request's path when the method matches, else null. */
export function match(exchange: Exchange, method: string, pattern: RegExp): RegExpMatchArray | null {
  if (exchange.method !== method) return null;
  return pathname(exchange).match(pattern);
}

const UUID_TEXT = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Whether an id is a UUID in its text form (what the service must check before any lookup). */
export function isUuid(value: unknown): boolean {
  return typeof value === 'string' && UUID_TEXT.test(value);
}

export function isJson(answer: Answer): boolean {
  return (answer.headers['content-type'] ?? '').includes('json');
}

export function readJson<T = Record<string, unknown>>(answer: Answer): T {
  return JSON.parse(answer.body.toString('utf8')) as T;
}

export function writeJson(answer: Answer, value: unknown): void {
  answer.body = Buffer.from(JSON.stringify(value));
  answer.headers['content-type'] = 'application/json';
}

export function jsonAnswer(status: number, value: unknown, headers: Record<string, string> = {}): Answer {
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: Buffer.from(JSON.stringify(value)),
  };
}

export function bearer(exchange: Exchange): string | undefined {
  return exchange.headers.get('authorization')?.replace(/^Bearer\s+/i, '');
}

/** The seed organization whose key the request carries. */
export function caller(exchange: Exchange, state: ProxyState): SeedOrganization | undefined {
  const key = bearer(exchange);
  return state.organizations.find((org) => org.key === key);
}

/** The other seed organizations, whose keys a leaking backend would effectively use. */
export function others(exchange: Exchange, state: ProxyState): SeedOrganization[] {
  const key = bearer(exchange);
  return state.organizations.filter((org) => org.key !== key);
}

/** The request again with another organization's key: what a lookup that ignores the organization finds. */
export async function asOwner(exchange: Exchange, state: ProxyState, org: SeedOrganization): Promise<Answer> {
  const body = exchange.body.length ? JSON.parse(exchange.body.toString('utf8')) : undefined;
  return state.upstream(exchange.method, exchange.path, { key: org.key, body });
}

/** A regression's own map in the proxy's memo, made on first use. */
export function memoMap<K, V>(state: ProxyState, name: string): Map<K, V> {
  let map = state.memo.get(name) as Map<K, V> | undefined;
  if (!map) {
    map = new Map<K, V>();
    state.memo.set(name, map);
  }
  return map;
}

/** A copy of an answer, for a cache that serves it later. */
export function copyAnswer(answer: Answer): Answer {
  return { status: answer.status, headers: { ...answer.headers }, body: Buffer.from(answer.body) };
}

/**
 * measurements.csv's columns as the interface lists them, in its order. Written from the interface,
 * not imported from the suite's model: a regression set is an independent judge of the suite, so a
 * mistake in the suite's own list must not be shared here.
 */
export const CSV_COLUMNS = [
  'image_name',
  'image_width',
  'image_height',
  'segmentation_id',
  'segmentation_source',
  'model_name',
  'confluency',
  'roi_index',
  'roi_id',
  'cell_type',
  'tags',
  'entity_type',
  'area_px',
  'perimeter_px',
  'centroid_x',
  'centroid_y',
  'bbox_x',
  'bbox_y',
  'bbox_w',
  'bbox_h',
];
