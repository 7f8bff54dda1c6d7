import { bearer, caller, isJson, match, memoMap, readJson, writeJson } from '../edit-helpers.js';
import type { Answer, Exchange, ProxyState } from '../regression.js';

/** What set G's regressions share: the control plane's view of an organization, and slots a bug keeps. */

export const UUID = '([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})';
export const IMAGE_READ = new RegExp(`^/api/v1/(?:upload|image)/${UUID}$`);

interface OrganizationView {
  id: string;
  plan: { name: string; storage_cap_images: number; monthly_analysis_cap: number };
  usage: { images: number; analyses_this_month: number };
}

/** The organization as the operator's dashboard sees it: its plan and usage. */
export async function organizationView(
  state: ProxyState,
  orgId: string,
): Promise<OrganizationView | undefined> {
  const answer = await state.upstream('GET', '/__mock/organizations');
  if (answer.status !== 200) return undefined;
  return readJson<OrganizationView[]>(answer).find((org) => org.id === orgId);
}

/** The organization id of the caller (seed or learned), if known. */
export function callerOrg(exchange: Exchange, state: ProxyState): string | undefined {
  return caller(exchange, state)?.id;
}

/** The JSON body of a request, or undefined. */
export function requestJson(exchange: Exchange): Record<string, unknown> | undefined {
  if (!exchange.body.length) return undefined;
  try {
    const value = JSON.parse(exchange.body.toString('utf8')) as unknown;
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Edits every image record an answer carries (an Image, `{image}`, a created record). */
export function editImages(answer: Answer, edit: (image: Record<string, unknown>) => void): void {
  if (!isJson(answer) || answer.status >= 300) return;
  const body = readJson<Record<string, unknown>>(answer);
  if (body.image && typeof body.image === 'object') edit(body.image as Record<string, unknown>);
  else if ('upload_status' in body) edit(body);
  else return;
  writeJson(answer, body);
}

/** Whether the exchange creates an image: POST /upload (either mode) or POST /image. */
export function createsImage(exchange: Exchange): boolean {
  return !!(match(exchange, 'POST', /^\/api\/v1\/upload$/) ?? match(exchange, 'POST', /^\/api\/v1\/image$/));
}

/** The id of the image an answer created. */
export function createdImageId(answer: Answer): string | undefined {
  if (!isJson(answer) || answer.status !== 200) return undefined;
  const body = readJson<{ id?: string; image?: { id?: string } }>(answer);
  return body.image?.id ?? body.id;
}

/**
 * Storage slots a bug holds on to per organization (a counter not given back): the effective cap
 * is the plan's minus these. An image created past it is removed again and refused 402, as the
 * backend's own check would have refused it.
 */
function heldSlots(state: ProxyState): Map<string, number> {
  return memoMap<string, number>(state, 'g-held-slots');
}

export async function refuseIfHeldSlots(exchange: Exchange, state: ProxyState): Promise<Answer | undefined> {
  if (!createsImage(exchange)) return undefined;
  const orgId = callerOrg(exchange, state);
  const held = orgId ? (heldSlots(state).get(orgId) ?? 0) : 0;
  if (!orgId || held === 0) return undefined;
  const answer = await state.resend(exchange);
  const id = createdImageId(answer);
  if (!id) return answer;
  const view = await organizationView(state, orgId);
  if (!view || view.usage.images <= view.plan.storage_cap_images - held) return answer;
  await state.upstream('DELETE', `/api/v1/image/${id}`, { key: bearer(exchange) });
  return {
    status: 402,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: Buffer.from(
      JSON.stringify({
        detail: `Storage cap reached: your plan allows ${view.plan.storage_cap_images} images. Delete images or upgrade your plan.`,
      }),
    ),
  };
}

export function addHeldSlot(state: ProxyState, orgId: string | undefined): void {
  if (!orgId) return;
  heldSlots(state).set(orgId, (heldSlots(state).get(orgId) ?? 0) + 1);
}

/** A minimal RFC 4180 reader and writer, so an edit of a cell keeps the others as they were. */
function parseCsv(text: string): string[][] {
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
    } else if (ch === '\n' || ch === '\r') {
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

function writeCsv(rows: string[][], eol: string): string {
  const quote = (cell: string) => (/[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell);
  return rows.map((row) => row.map(quote).join(',')).join(eol) + eol;
}

/** Edits the named column of every data row of a measurements.csv answer. */
export function editCsvColumn(answer: Answer, column: string, edit: (value: string) => string): void {
  if (answer.status !== 200 || !(answer.headers['content-type'] ?? '').includes('csv')) return;
  const text = answer.body.toString('utf8');
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const rows = parseCsv(text);
  const at = rows[0]?.indexOf(column) ?? -1;
  if (at < 0) return;
  for (const row of rows.slice(1)) if (row[at] !== undefined && row[at] !== '') row[at] = edit(row[at]);
  answer.body = Buffer.from(writeCsv(rows, eol));
}

/** Share answers (POST /shares, GET and DELETE /shares/{id}) as objects. */
export function isShareAnswer(exchange: Exchange, answer: Answer): boolean {
  return (
    answer.status === 200 &&
    isJson(answer) &&
    (!!match(exchange, 'POST', /^\/api\/v1\/shares$/) ||
      !!match(exchange, 'GET', new RegExp(`^/api/v1/shares/${UUID}$`)) ||
      !!match(exchange, 'DELETE', new RegExp(`^/api/v1/shares/${UUID}$`)))
  );
}

export interface ShareBody {
  id: string;
  segmentation_id: string;
  url: string | null;
  view_count: number;
  last_viewed_at: string | null;
  revoked_at: string | null;
}

export function tokenOf(url: string | null | undefined): string | undefined {
  return url ? url.match(/\/share\/([^/?#]+)/)?.[1] : undefined;
}

/** Every share the client was answered, by link token: its id, segmentation and the key that made it. */
export function sharesByToken(
  state: ProxyState,
): Map<string, { id: string; segmentationId: string; key: string }> {
  return memoMap(state, 'g-shares-by-token');
}

export function noteShare(exchange: Exchange, answer: Answer, state: ProxyState): ShareBody | undefined {
  if (!isShareAnswer(exchange, answer)) return undefined;
  const share = readJson<ShareBody>(answer);
  const token = tokenOf(share.url);
  const key = bearer(exchange);
  if (token && key)
    sharesByToken(state).set(token, { id: share.id, segmentationId: share.segmentation_id, key });
  return share;
}
