import { isJson, pathname, readJson, writeJson } from '../edit-helpers.js';
import type { Answer, Exchange, ProxyState } from '../regression.js';

/** What set E's regressions share: the image answers, and an organization's plan and usage as the service sees them. */

export type ImageRecord = Record<string, unknown> & { id: string };

/** The routes whose answer is an image (or carries one): upload, the reads and the record creation. */
const IMAGE_ROUTES = /^\/api\/v1\/(upload|image)(\/[^/]+)?$/;

/**
 * Edits every image an answer carries (the upload response's `image`, a read, a created record),
 * for a bug in the one serializer all of them share.
 */
export function editImages(exchange: Exchange, answer: Answer, edit: (image: ImageRecord) => void): void {
  if (answer.status !== 200 || !isJson(answer) || !IMAGE_ROUTES.test(pathname(exchange))) return;
  if (!['GET', 'POST'].includes(exchange.method)) return;
  const body = readJson(answer);
  const image = (body.image ?? body) as ImageRecord;
  if (typeof image?.id !== 'string') return;
  edit(image);
  writeJson(answer, body);
}

export interface Usage {
  id: string;
  plan: { name: string; storage_cap_images: number; monthly_analysis_cap: number };
  usage: { images: number; analyses_this_month: number };
}

/** Every organization's plan and usage, as the service's own billing tables hold them. */
export async function usages(state: ProxyState): Promise<Usage[]> {
  const answer = await state.upstream('GET', '/__mock/organizations');
  return readJson<Usage[]>(answer);
}

export async function usageOf(
  state: ProxyState,
  organizationId: string | undefined,
): Promise<Usage | undefined> {
  return (await usages(state)).find((org) => org.id === organizationId);
}
