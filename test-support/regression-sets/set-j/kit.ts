import { randomBytes } from 'node:crypto';
import type { Answer, Exchange, ProxyState, SeedOrganization } from '../regression.js';
import { bearer, isJson, jsonAnswer, memoMap, pathname, writeJson } from '../edit-helpers.js';

/**
 * What several of set J's regressions share: reading and rewriting JSON answers without ever
 * throwing, the routes they touch, the backend's own view of an organization (its plan, usage and
 * predictions, read through the control plane as a backend reads its own tables), and the bookkeeping
 * of requests that overlap in time (the races several of them are about).
 */

export type Json = Record<string, unknown>;

/** The JSON object an answer carries, or null (a file, an array, a body that does not parse). */
export function bodyJson(answer: Answer): Json | null {
  if (!isJson(answer)) return null;
  try {
    const body = JSON.parse(answer.body.toString('utf8')) as unknown;
    return body && typeof body === 'object' && !Array.isArray(body) ? (body as Json) : null;
  } catch {
    return null;
  }
}

/** The JSON object of a successful answer, or null. */
export function okJson(answer: Answer): Json | null {
  return answer.status < 300 ? bodyJson(answer) : null;
}

/** The JSON array of a successful answer (the model list), or null. */
export function okArray(answer: Answer): Json[] | null {
  if (answer.status >= 300 || !isJson(answer)) return null;
  try {
    const body = JSON.parse(answer.body.toString('utf8')) as unknown;
    return Array.isArray(body) ? (body as Json[]) : null;
  } catch {
    return null;
  }
}

/** The request's JSON object body, or an empty object. */
export function requestJson(exchange: Exchange): Json {
  if (!exchange.body.length) return {};
  try {
    const body = JSON.parse(exchange.body.toString('utf8')) as unknown;
    return body && typeof body === 'object' && !Array.isArray(body) ? (body as Json) : {};
  } catch {
    return {};
  }
}

export function setRequestJson(exchange: Exchange, body: Json): void {
  exchange.body = Buffer.from(JSON.stringify(body));
}

export function isMultipart(exchange: Exchange): boolean {
  return (exchange.headers.get('content-type') ?? '').toLowerCase().startsWith('multipart/form-data');
}

/** An id as the backend stores it: lower case, without the `urn:uuid:` prefix the document accepts. */
export function canonicalId(id: unknown): string {
  return typeof id === 'string' ? id.replace(/^urn:uuid:/i, '').toLowerCase() : '';
}

export function errorAnswer(status: number, detail: string, headers: Record<string, string> = {}): Answer {
  return jsonAnswer(status, { detail }, headers);
}

/** Replaces an answer in place (a response hook's way to answer something else). */
export function replaceAnswer(answer: Answer, by: Answer): void {
  answer.status = by.status;
  answer.headers = { ...by.headers };
  answer.body = by.body;
}

export function notReadyDetail(imageId: string): string {
  return (
    `Image ${imageId} is not ready (upload_status is 'processing'); ` +
    'poll GET /api/v1/upload/{image_id} until it is ready.'
  );
}

/* Routes, matched on the path without its query. */
export const ROUTES = {
  upload: /^\/api\/v1\/upload$/,
  createImage: /^\/api\/v1\/image$/,
  image: /^\/api\/v1\/(?:upload|image)\/([^/]+)$/,
  complete: /^\/api\/v1\/upload\/([^/]+)\/complete$/,
  abort: /^\/api\/v1\/upload\/([^/]+)\/abort$/,
  models: /^\/api\/v1\/models$/,
  predict: /^\/api\/v1\/predict$/,
  prediction: /^\/api\/v1\/predict\/([^/]+)$/,
  export: /^\/api\/v1\/export\/([^/]+)\/(overlay\.png|measurements\.csv|rois\.geojson|rois\.zip)$/,
  shares: /^\/api\/v1\/shares$/,
  share: /^\/api\/v1\/shares\/([^/]+)$/,
  sharePage: /^\/share\/([^/]+)(\/image\.png)?$/,
};

/** Whether the request is one that adds an image to the organization's storage count. */
export function addsImage(exchange: Exchange): boolean {
  if (exchange.method !== 'POST') return false;
  const path = pathname(exchange);
  return ROUTES.upload.test(path) || ROUTES.createImage.test(path);
}

/** The image records an answer carries: the Upload response's `image`, or the record itself. */
export function imagesIn(body: Json | null): Json[] {
  if (!body) return [];
  if (body.image && typeof body.image === 'object') return [body.image as Json];
  return typeof body.upload_status === 'string' ? [body] : [];
}

/** Edits every image record of a successful JSON answer, and writes it back when one changed. */
export function editImages(answer: Answer, edit: (image: Json) => boolean): void {
  const body = okJson(answer);
  let changed = false;
  for (const image of imagesIn(body)) changed = edit(image) || changed;
  if (changed) writeJson(answer, body);
}

/** The image id of an image-read request (GET /upload/{id}, GET /image/{id}), canonical, or ''. */
export function imageReadId(exchange: Exchange): string {
  if (exchange.method !== 'GET') return '';
  return canonicalId(pathname(exchange).match(ROUTES.image)?.[1]);
}

/** The caller's organization (seed, or made through the control plane). */
export function orgOf(exchange: Exchange, state: ProxyState): SeedOrganization | undefined {
  const key = bearer(exchange);
  return key ? state.organizations.find((org) => org.key === key) : undefined;
}

export interface OrgView {
  id: string;
  name: string;
  plan: { name: string; storage_cap_images: number; monthly_analysis_cap: number };
  usage: { images: number; analyses_this_month: number; month: string };
}

/** An organization's plan and usage, as the backend's billing tables hold them. */
export async function orgView(state: ProxyState, orgId: string): Promise<OrgView | undefined> {
  const answer = await state.upstream('GET', '/__mock/organizations');
  if (answer.status !== 200) return undefined;
  try {
    return (JSON.parse(answer.body.toString('utf8')) as OrgView[]).find((org) => org.id === orgId);
  } catch {
    return undefined;
  }
}

export async function setPlan(state: ProxyState, orgId: string, plan: OrgView['plan']): Promise<boolean> {
  const answer = await state.upstream('PUT', `/__mock/organizations/${orgId}/plan`, { body: plan });
  return answer.status === 200;
}

export async function setAnalyses(state: ProxyState, orgId: string, used: number): Promise<boolean> {
  const answer = await state.upstream('PUT', `/__mock/organizations/${orgId}/usage`, {
    body: { analyses_this_month: Math.max(0, used) },
  });
  return answer.status === 200;
}

export interface StoredPrediction {
  prediction_id: string;
  status: string;
  image_id: string;
  model_id: string;
  created_at: string;
  segmentation_id?: string;
  cell_count?: number;
  error?: string;
  shares?: Array<{ id: string; revoked_at: string | null }>;
}

/** An image as the organization's own tables hold it (the control plane's view: no poll, no journal). */
export interface StoredImage {
  id: string;
  upload_status: string;
  shape: number[] | null;
  predictions: StoredPrediction[];
}

/** An organization's images with their predictions, as its own tables hold them. */
export async function storedImages(state: ProxyState, orgId: string): Promise<StoredImage[]> {
  const answer = await state.upstream('GET', `/__mock/images?organization_id=${orgId}&limit=1000`);
  if (answer.status !== 200) return [];
  try {
    return JSON.parse(answer.body.toString('utf8')) as StoredImage[];
  } catch {
    return [];
  }
}

/** An organization's stored predictions, every image's. */
export async function storedPredictions(state: ProxyState, orgId: string): Promise<StoredPrediction[]> {
  return (await storedImages(state, orgId)).flatMap((image) => image.predictions ?? []);
}

/** The models an organization sees, as the public list renders them, read from its own tables. */
export async function orgModels(state: ProxyState, orgId: string): Promise<Json[]> {
  const answer = await state.upstream('GET', `/__mock/organizations/${orgId}/models`);
  return (okArray(answer) ?? []).map(({ engine: _engine, ...model }) => model);
}

/** The prediction that produced a segmentation, as the organization's tables hold it. */
export async function predictionOfSegmentation(
  state: ProxyState,
  orgId: string,
  segmentationId: string,
): Promise<StoredPrediction | undefined> {
  return (await storedPredictions(state, orgId)).find((run) => run.segmentation_id === segmentationId);
}

/**
 * Runs `work` after every earlier call with the same name has finished: the proxy's stand-in for a
 * row lock, so two requests of one regression never change a plan or a counter at once.
 */
export function serialized<T>(state: ProxyState, name: string, work: () => Promise<T>): Promise<T> {
  const key = `serialized:${name}`;
  const before = (state.memo.get(key) as Promise<unknown> | undefined) ?? Promise.resolve();
  const run = before.then(work, work);
  state.memo.set(
    key,
    run.catch(() => undefined),
  );
  return run;
}

/** Requests older than this are taken for lost (their answer never came back through the proxy). */
const STALE_MS = 60_000;

/**
 * Requests of one kind still in flight, by key (a segmentation, an image, a prediction's ids): what
 * a race needs to know. `enter` says whether another request with the same key was in flight when
 * this one arrived; `leave` is called once its answer is back.
 */
export function inFlight(state: ProxyState, name: string) {
  const flights = memoMap<string, Map<Exchange, number>>(state, `in-flight:${name}`);
  const entered = memoMap<Exchange, { key: string; concurrent: boolean }>(state, `entered:${name}`);
  return {
    enter(exchange: Exchange, key: string): boolean {
      const now = Date.now();
      const flight = flights.get(key) ?? new Map<Exchange, number>();
      for (const [other, at] of flight) if (now - at > STALE_MS) flight.delete(other);
      const concurrent = flight.size > 0;
      flight.set(exchange, now);
      flights.set(key, flight);
      entered.set(exchange, { key, concurrent });
      return concurrent;
    },
    /** Whether this request overlapped another of the same key; undefined when it never entered. */
    leave(exchange: Exchange): boolean | undefined {
      const entry = entered.get(exchange);
      if (!entry) return undefined;
      entered.delete(exchange);
      flights.get(entry.key)?.delete(exchange);
      return entry.concurrent;
    },
    /** How many requests with this key are still in flight. */
    count(key: string): number {
      return flights.get(key)?.size ?? 0;
    },
  };
}

/** Resolves when `done()` is true, checking every 20 ms, or after `limitMs` whatever it says. */
export async function until(done: () => boolean, limitMs = 15_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!done() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** The token at the end of a share url (or a share page's path). */
export function shareToken(url: unknown): string {
  return typeof url === 'string' ? (url.split('/share/')[1] ?? '').split(/[/?#]/)[0] : '';
}

/** A share token as the service draws them: 256 bits, base64url. */
export function newShareToken(): string {
  return randomBytes(32).toString('base64url');
}

/** CSV text as rows of cells (RFC 4180 quoting). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\r' || ch === '\n') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (cell.length || row.length) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

/** Rows written back as the service writes them: RFC 4180 quoting, CRLF, a lone empty cell as `""`. */
export function writeCsv(rows: string[][]): string {
  const quote = (cell: string) => (/[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell);
  return (
    rows.map((row) => (row.length === 1 && row[0] === '' ? '""' : row.map(quote).join(','))).join('\r\n') +
    '\r\n'
  );
}

export function isCsv(answer: Answer): boolean {
  return answer.status === 200 && (answer.headers['content-type'] ?? '').startsWith('text/csv');
}
