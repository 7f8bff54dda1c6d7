import { parse } from 'csv-parse/sync';
import type { Answer, Exchange, ProxyState } from '../regression.js';
import { caller, isJson, match, pathname, readJson, writeJson } from '../edit-helpers.js';

/** What set H's regressions share: the image records in an answer, CSV cells, an organization's plan. */

type Json = Record<string, unknown>;

const IMAGE_ROUTES: Array<[string, RegExp]> = [
  ['POST', /^\/api\/v1\/upload$/],
  ['GET', /^\/api\/v1\/upload\/[^/]+$/],
  ['GET', /^\/api\/v1\/image\/[^/]+$/],
  ['POST', /^\/api\/v1\/image$/],
];

/** The image record an answer carries (an upload answer's `image`, or the record itself), or null. */
export function imageOf(exchange: Exchange, answer: Answer): Json | null {
  if (answer.status !== 200 || !isJson(answer)) return null;
  if (!IMAGE_ROUTES.some(([method, pattern]) => match(exchange, method, pattern))) return null;
  const body = readJson<Json>(answer);
  const image = (typeof body.image === 'object' && body.image !== null ? body.image : body) as Json;
  return typeof image.upload_status === 'string' ? image : null;
}

/** Edits the image record of an answer in place (no-op when the answer carries none). */
export function editImage(exchange: Exchange, answer: Answer, edit: (image: Json) => void): void {
  if (!imageOf(exchange, answer)) return;
  const body = readJson<Json>(answer);
  const image = (typeof body.image === 'object' && body.image !== null ? body.image : body) as Json;
  edit(image);
  writeJson(answer, body);
}

/** The JSON body of a request, or an empty object. */
export function requestJson(exchange: Exchange): Json {
  try {
    const value: unknown = exchange.body.length ? JSON.parse(exchange.body.toString('utf8')) : {};
    return typeof value === 'object' && value !== null ? (value as Json) : {};
  } catch {
    return {};
  }
}

export function isJsonRequest(exchange: Exchange): boolean {
  return (exchange.headers.get('content-type') ?? '').includes('json');
}

export function isMultipartRequest(exchange: Exchange): boolean {
  return (exchange.headers.get('content-type') ?? '').includes('multipart/form-data');
}

function writeCsv(rows: string[][]): string {
  const quote = (cell: string) => (/[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell);
  return rows.map((row) => row.map(quote).join(',') + '\r\n').join('');
}

/** Edits the rows of a measurements.csv answer; `edit` gets the header and the data rows. */
export function editCsv(
  exchange: Exchange,
  answer: Answer,
  edit: (header: string[], rows: string[][]) => void,
): void {
  if (answer.status !== 200 || !match(exchange, 'GET', /^\/api\/v1\/export\/[^/]+\/measurements\.csv$/))
    return;
  const [header, ...rows] = parse(answer.body.toString('utf8')) as string[][];
  if (!header) return;
  edit(header, rows);
  answer.body = Buffer.from(writeCsv([header, ...rows]), 'utf8');
}

export interface Plan {
  name: string;
  storage_cap_images: number;
  monthly_analysis_cap: number;
}

/** The caller's organization's plan, as the dashboard (the control plane) holds it. */
export async function planOf(state: ProxyState, organizationId: string): Promise<Plan | undefined> {
  const listed = await state.upstream('GET', '/__mock/organizations');
  const body = readJson<unknown>(listed);
  const orgs = (Array.isArray(body) ? body : ((body as Json).organizations ?? [])) as Array<{
    id: string;
    plan: Plan;
  }>;
  return orgs.find((org) => org.id === organizationId)?.plan;
}

/**
 * What a backend that lets one more item past the cap answers: the plan is raised by one for the
 * time of the request (as the faulty counter effectively does), the request sent again, the plan put back.
 */
export async function pastCap(
  exchange: Exchange,
  answer: Answer,
  state: ProxyState,
  field: 'storage_cap_images' | 'monthly_analysis_cap',
): Promise<boolean> {
  const org = caller(exchange, state);
  if (!org) return false;
  const plan = await planOf(state, org.id);
  if (!plan) return false;
  const put = (value: Plan) =>
    state.upstream('PUT', `/__mock/organizations/${org.id}/plan`, {
      body: {
        name: value.name,
        storage_cap_images: value.storage_cap_images,
        monthly_analysis_cap: value.monthly_analysis_cap,
      },
    });
  await put({ ...plan, [field]: plan[field] + 1 });
  try {
    const again = await state.resend(exchange);
    answer.status = again.status;
    answer.headers = again.headers;
    answer.body = again.body;
  } finally {
    await put(plan);
  }
  return answer.status < 300;
}

/** The id captured by `pattern` on the request's path, lower-cased, or undefined. */
export function idOn(exchange: Exchange, method: string, pattern: RegExp): string | undefined {
  return match(exchange, method, pattern)?.[1]?.toLowerCase();
}

export { pathname };
