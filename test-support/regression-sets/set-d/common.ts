import { createHash } from 'node:crypto';
import type { Answer, Exchange, ProxyState } from '../regression.js';
import { caller, isJson, pathname, readJson } from '../edit-helpers.js';

/** What set D's regressions share: CSV cells, an organization's plan and usage, share tokens. */

export const EXPORT_PATH =
  /^\/api\/v1\/export\/([^/]+)\/(overlay\.png|measurements\.csv|rois\.geojson|rois\.zip)$/;

export function isExport(exchange: Exchange): boolean {
  return exchange.method === 'GET' && EXPORT_PATH.test(pathname(exchange));
}

export function query(exchange: Exchange): URLSearchParams {
  return new URL(exchange.path, 'http://proxy').searchParams;
}

/** RFC 4180 cells of a CSV text. */
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
  if (cell !== '' || row.length) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

export function writeCsv(rows: string[][], eol = '\r\n'): string {
  const quote = (cell: string) => (/[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell);
  return rows.map((row) => row.map(quote).join(',')).join(eol) + eol;
}

/** Edits a measurements.csv answer row by row (header first), keeping its line ending. */
export function editCsv(answer: Answer, edit: (header: string[], rows: string[][]) => void): void {
  if (answer.status !== 200) return;
  const text = answer.body.toString('utf8');
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const [header, ...rows] = parseCsv(text);
  if (!header) return;
  edit(header, rows);
  answer.body = Buffer.from(writeCsv([header, ...rows], eol));
}

export interface OrgStatus {
  id: string;
  plan: { name: string; storage_cap_images: number; monthly_analysis_cap: number };
  usage: { images: number; analyses_this_month: number };
}

/** Every organization's plan and usage, as the backend's own billing tables hold them. */
export async function organizations(state: ProxyState): Promise<OrgStatus[]> {
  const answer = await state.upstream('GET', '/__mock/organizations');
  if (answer.status !== 200 || !isJson(answer)) return [];
  return readJson<OrgStatus[]>(answer);
}

export async function callerStatus(exchange: Exchange, state: ProxyState): Promise<OrgStatus | undefined> {
  const org = caller(exchange, state);
  if (!org) return undefined;
  return (await organizations(state)).find((o) => o.id === org.id);
}

/** A stable UUID-shaped id derived from text (what a backend's own id column would hold). */
export function derivedUuid(text: string): string {
  const hex = createHash('sha256').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The token at the end of a share URL. */
export function shareToken(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  return url.match(/\/share\/([^/?#]+)$/)?.[1];
}

export function detailOf(answer: Answer): string {
  if (!isJson(answer)) return '';
  try {
    const detail = readJson(answer).detail;
    return typeof detail === 'string' ? detail : JSON.stringify(detail);
  } catch {
    return '';
  }
}
