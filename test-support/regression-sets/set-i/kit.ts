import type { Answer, Exchange, ProxyState, SeedOrganization } from '../regression.js';
import { bearer, isJson, readJson } from '../edit-helpers.js';

/** What several of set I's regressions share: the image an answer carries, an organization's usage, CSV cells. */

export type Json = Record<string, unknown>;

/** The JSON body of a successful answer, or null (an error, a file). */
export function okJson(answer: Answer): Json | null {
  if (answer.status >= 300 || !isJson(answer)) return null;
  const body = readJson<unknown>(answer);
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Json) : null;
}

/** The image record an answer carries: the Upload response's `image`, or the answer itself. */
export function imageIn(body: Json | null): Json | null {
  if (!body) return null;
  const nested = body.image;
  if (nested && typeof nested === 'object') return nested as Json;
  return typeof body.upload_status === 'string' ? body : null;
}

/** The request's JSON body, or an empty object. */
export function requestJson(exchange: Exchange): Json {
  if (!exchange.body.length) return {};
  try {
    const parsed = JSON.parse(exchange.body.toString('utf8')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Json) : {};
  } catch {
    return {};
  }
}

export function isJsonRequest(exchange: Exchange): boolean {
  return (exchange.headers.get('content-type') ?? '').includes('json');
}

/** The organization the request's key belongs to (seed, or made through the control plane). */
export function orgOf(exchange: Exchange, state: ProxyState): SeedOrganization | undefined {
  const key = bearer(exchange);
  return state.organizations.find((org) => org.key === key);
}

export function orgOfKey(state: ProxyState, key: string | undefined): SeedOrganization | undefined {
  return state.organizations.find((org) => org.key === key);
}

export interface Usage {
  plan: { name: string; storage_cap_images: number; monthly_analysis_cap: number };
  usage: { images: number; analyses_this_month: number };
}

/** An organization's plan and usage as the backend's own billing tables hold them. */
export async function usageOf(state: ProxyState, orgId: string): Promise<Usage | undefined> {
  const answer = await state.upstream('GET', '/__mock/organizations');
  if (answer.status !== 200) return undefined;
  return readJson<Array<Usage & { id: string }>>(answer).find((org) => org.id === orgId);
}

export function analysisCapDetail(usage: Usage, used: number): string {
  return (
    `Monthly analysis cap reached: the ${usage.plan.name} plan allows ${usage.plan.monthly_analysis_cap} ` +
    `analyses a month and ${used} were used this month. Upgrade the plan or wait for next month.`
  );
}

/** The token at the end of a share url. */
export function shareToken(url: unknown): string | undefined {
  return typeof url === 'string' ? url.split('/share/')[1] : undefined;
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

export function writeCsv(rows: string[][], eol: string): string {
  const quote = (cell: string) => (/[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell);
  return rows.map((row) => row.map(quote).join(',')).join(eol) + eol;
}
