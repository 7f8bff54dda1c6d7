import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { caller, isJson, pathname, readJson, writeJson } from '../edit-helpers.js';
import type { Answer, Exchange, ProxyState } from '../regression.js';

/** What set C's regressions share beyond edit-helpers.ts: the seed's base models, image JSON, the operator's view. */

const SEED_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/seed.json');

/** The shared base models' ids, from the seed (every organization has them). */
export const BASE_MODEL_IDS: string[] = (
  JSON.parse(readFileSync(SEED_FILE, 'utf8')) as { base_models: Array<{ id: string }> }
).base_models.map((model) => model.id);

export const IMAGE_READ = /^\/api\/v1\/(?:upload|image)\/([^/]+)$/;

/** Whether the request is one of the routes that answer an image (upload, image reads, image creation). */
function answersImage(exchange: Exchange): boolean {
  const route = pathname(exchange);
  if (exchange.method === 'POST') return route === '/api/v1/upload' || route === '/api/v1/image';
  return exchange.method === 'GET' && IMAGE_READ.test(route);
}

/** The image inside an answer of `answersImage`: `image` of an upload answer, or the body itself. */
export function imageOf(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const image = (body.image ?? body) as Record<string, unknown>;
  return typeof image === 'object' && image !== null && 'upload_status' in image ? image : undefined;
}

/** Edits the image of a 200 image answer in place. */
export function editImage(
  exchange: Exchange,
  answer: Answer,
  edit: (image: Record<string, unknown>) => void,
): void {
  if (answer.status !== 200 || !isJson(answer) || !answersImage(exchange)) return;
  const body = readJson(answer);
  const image = imageOf(body);
  if (!image) return;
  edit(image);
  writeJson(answer, body);
}

export function isMultipart(exchange: Exchange): boolean {
  return (exchange.headers.get('content-type') ?? '').includes('multipart/form-data');
}

export function requestJson<T = Record<string, unknown>>(exchange: Exchange): T | undefined {
  if (!exchange.body.length) return undefined;
  try {
    return JSON.parse(exchange.body.toString('utf8')) as T;
  } catch {
    return undefined;
  }
}

/** The image as the caller reads it, or undefined when it is not theirs. */
export async function readImage(
  exchange: Exchange,
  state: ProxyState,
  imageId: string,
): Promise<Record<string, unknown> | undefined> {
  const key = exchange.headers.get('authorization')?.replace(/^Bearer\s+/i, '');
  const answer = await state.upstream('GET', `/api/v1/upload/${imageId}`, { key });
  return answer.status === 200 ? readJson(answer) : undefined;
}

interface OperatorOrganization {
  id: string;
  plan: { name: string; storage_cap_images: number; monthly_analysis_cap: number };
  usage: { images: number; analyses_this_month: number; month: string };
}

/** The caller's organization as the operator sees it (plan and usage), through the control plane. */
export async function operatorView(
  exchange: Exchange,
  state: ProxyState,
): Promise<OperatorOrganization | undefined> {
  const org = caller(exchange, state);
  if (!org) return undefined;
  const answer = await state.upstream('GET', '/__mock/organizations');
  if (answer.status !== 200) return undefined;
  return readJson<OperatorOrganization[]>(answer).find((o) => o.id === org.id);
}

interface OperatorImage {
  id: string;
  upload_status: string;
  predictions: Array<{ prediction_id: string; status: string; created_at: string }>;
}

export async function operatorImages(state: ProxyState, organizationId: string): Promise<OperatorImage[]> {
  const answer = await state.upstream('GET', `/__mock/images?organization_id=${organizationId}&limit=1000`);
  return answer.status === 200 ? readJson<OperatorImage[]>(answer) : [];
}

/**
 * The request sent again with one cap of the caller's plan raised by one for the time of the
 * request: how a backend whose check miscounts lets one more through. The plan is put back after.
 */
export async function resendPastCap(
  exchange: Exchange,
  state: ProxyState,
  org: OperatorOrganization,
  cap: 'storage_cap_images' | 'monthly_analysis_cap',
): Promise<Answer> {
  const raised = { ...org.plan, [cap]: org.plan[cap] + 1 };
  await state.upstream('PUT', `/__mock/organizations/${org.id}/plan`, { body: raised });
  try {
    return await state.resend(exchange);
  } finally {
    await state.upstream('PUT', `/__mock/organizations/${org.id}/plan`, { body: org.plan });
  }
}

export function replaceAnswer(answer: Answer, next: Answer): void {
  answer.status = next.status;
  answer.headers = next.headers;
  answer.body = next.body;
}

export function query(exchange: Exchange): URLSearchParams {
  return new URL(exchange.path, 'http://proxy').searchParams;
}
