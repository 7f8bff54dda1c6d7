import { createHash, randomUUID } from 'node:crypto';
import type { Answer, Exchange, ProxyState } from '../../sabotage-catalogue.js';

/** What the behaviour mutants read and do through the proxy: routes, bodies, keys, the mock's own plane. */

export const route = (exchange: Exchange) => exchange.path.split('?')[0];

export const keyOf = (exchange: Exchange) =>
  exchange.headers.get('authorization')?.replace(/^Bearer /, '') ?? '';

export const isJson = (answer: Answer) => /json/.test(answer.headers['content-type'] ?? '');

export function bodyOf<T = Record<string, unknown>>(buffer: Buffer): T | undefined {
  try {
    return JSON.parse(buffer.toString('utf8')) as T;
  } catch {
    return undefined;
  }
}

export function setJson(answer: Answer, status: number, body: unknown): void {
  answer.status = status;
  answer.headers['content-type'] = 'application/json';
  delete answer.headers.etag;
  answer.body = Buffer.from(JSON.stringify(body));
}

export function editJson(answer: Answer, edit: (body: Record<string, unknown>) => void): void {
  const body = bodyOf(answer.body);
  if (!body) return;
  edit(body);
  answer.body = Buffer.from(JSON.stringify(body));
}

export const freshId = () => randomUUID();

/** A request to the mock itself, past the proxy, with the key of `exchange`. */
export async function direct(
  state: ProxyState,
  method: string,
  path: string,
  key: string,
  body?: unknown,
): Promise<Response> {
  return fetch(`${state.target}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

export interface MockOrganization {
  id: string;
  keys: Array<{ id: string }>;
  plan: { storage_cap_images: number; monthly_analysis_cap: number };
  usage: { images: number; analyses_this_month: number };
}

/** The organization of an API key, as the control plane lists it (keys by id: `key_` and 16 hex digits of its SHA-256). */
export async function organizationOf(state: ProxyState, key: string): Promise<MockOrganization | undefined> {
  if (!key) return undefined;
  const keyId = `key_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
  const all = (await (await fetch(`${state.target}/__mock/organizations`)).json()) as MockOrganization[];
  return all.find((o) => o.keys.some((k) => k.id === keyId));
}

/**
 * Adds `delta` to the month's analyses of the key's organization. Only throwaway organizations
 * (not the run's main and other keys, which every concurrent mutant's checks share) are edited:
 * their caps are what the checks that count analyses read.
 */
export async function addAnalyses(state: ProxyState, key: string, delta: number): Promise<boolean> {
  if (key === state.keys.main || key === state.keys.other) return false;
  const org = await organizationOf(state, key);
  if (!org) return false;
  const next = Math.max(0, org.usage.analyses_this_month + delta);
  if (next === org.usage.analyses_this_month) return false;
  await fetch(`${state.target}/__mock/organizations/${org.id}/usage`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ analyses_this_month: next }),
  });
  return true;
}

/** The image a creation answered (POST /upload's `image`, POST /image's record). */
export function createdImage(
  exchange: Exchange,
  answer: Answer,
): { id: string; upload?: unknown } | undefined {
  if (exchange.method !== 'POST' || answer.status !== 200 || !isJson(answer)) return undefined;
  const r = route(exchange);
  const body = bodyOf<{ id?: string; image?: { id: string }; upload?: unknown }>(answer.body);
  if (r === '/api/v1/upload' && body?.image) return { id: body.image.id, upload: body.upload };
  if (r === '/api/v1/image' && body?.id) return { id: body.id, upload: body.upload };
  return undefined;
}

export const isCreation = (exchange: Exchange) =>
  exchange.method === 'POST' && ['/api/v1/upload', '/api/v1/image'].includes(route(exchange));

export const STORAGE_402 = (org: MockOrganization) =>
  `Storage cap reached: the plan allows ${org.plan.storage_cap_images} images and ${org.usage.images} are stored; delete images to free a slot.`;

/** The reads of one resource by id, by route. */
export const IMAGE_READ = /^\/api\/v1\/(?:upload|image)\/([^/]+)$/;
export const PREDICTION_READ = /^\/api\/v1\/predict\/([^/]+)$/;
export const EXPORT_READ = /^\/api\/v1\/export\/([^/]+)\/[^/]+$/;
export const SHARE_READ = /^\/api\/v1\/shares\/([^/]+)$/;
export const SHARE_PAGE = /^\/share\/([^/]+)(?:\/image\.png)?$/;
