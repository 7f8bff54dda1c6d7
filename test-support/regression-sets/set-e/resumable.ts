import { isJson, match, memoMap, pathname, readJson, writeJson } from '../edit-helpers.js';
import type { Answer, Exchange, Regression } from '../regression.js';
import { editImages } from './common.js';

interface Plan {
  part_size: number;
  upload_id: string;
  urls: Array<{ part_number: number; url: string }>;
}

/** The plan an answer carries: the upload response's or the created record's `upload`. */
function editPlan(exchange: Exchange, answer: Answer, edit: (plan: Plan, size: number) => void): void {
  const opening = match(exchange, 'POST', /^\/api\/v1\/(upload|image)$/);
  if (!opening || answer.status !== 200 || !isJson(answer)) return;
  const body = readJson<{ upload?: Plan | null; image?: { size: number }; size?: number }>(answer);
  if (!body.upload) return;
  edit(body.upload, (body.image?.size ?? body.size)!);
  writeJson(answer, body);
}

export const RESUMABLE: Regression[] = [
  {
    id: 'E-RES-PLAN-EXTRA-PART',
    area: 'resumable',
    description:
      'The part count is `floor(size / part_size) + 1`: a size that is an exact multiple of `part_size` gets one URL more than it has chunks, for an empty last part',
    violates:
      '"`resumable` (boolean; when true the response also carries `upload` with presigned part URLs sized for `size`)"',
    statedIn: 'interface',
    response(exchange, answer) {
      editPlan(exchange, answer, (plan, size) => {
        if (size % plan.part_size !== 0 || !plan.urls.length) return;
        const last = plan.urls[plan.urls.length - 1];
        const n = last.part_number + 1;
        plan.urls.push({ part_number: n, url: last.url.replace(/\/parts\/\d+/, `/parts/${n}`) });
      });
    },
  },
  {
    id: 'E-RES-URLS-TEXT-ORDER',
    area: 'resumable',
    description:
      "The plan's URLs come out of a map keyed by the part number as text and are sorted as strings: a plan of ten parts or more lists 1, 10, 11, 2, 3...",
    violates:
      '"`urls` | array | items `{part_number: integer, url: string}`; PUT each chunk to its `url`, in part order"',
    statedIn: 'interface',
    response(exchange, answer) {
      editPlan(exchange, answer, (plan) => {
        plan.urls.sort((a, b) => String(a.part_number).localeCompare(String(b.part_number)));
      });
    },
  },
  {
    id: 'E-RES-ABORTED-NO-REASON',
    area: 'resumable',
    description:
      'Abort sets `upload_status` to failed but writes no `upload_error` (only the conversion path fills it): an aborted image reads `failed` with no reason',
    violates: '"`upload_error` | string | reason, present when `upload_status` is `failed`"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const aborted = memoMap<string, boolean>(state, 'aborted');
      const abort = match(exchange, 'POST', /^\/api\/v1\/upload\/([^/]+)\/abort$/);
      if (abort && answer.status === 200) aborted.set(abort[1].toLowerCase(), true);
      if (exchange.method !== 'GET') return;
      editImages(exchange, answer, (image) => {
        if (aborted.has(image.id)) delete image.upload_error;
      });
    },
  },
  {
    id: 'E-RES-PART-ETAG-NOT-EXPOSED',
    area: 'resumable',
    description:
      "The storage bucket's CORS rule lists no ExposeHeaders: a part PUT answers its ETag but a browser client cannot read it (`ETag` missing from Access-Control-Expose-Headers)",
    violates:
      'x-http-conventions.cors: "Every route answers CORS: /api/v1, the presigned part URLs ... ETag, Content-Disposition, X-Request-Id, Retry-After, WWW-Authenticate and Allow are exposed to the calling page"',
    statedIn: 'document',
    response(exchange, answer) {
      if (!/^\/storage\//.test(pathname(exchange))) return;
      const exposed = answer.headers['access-control-expose-headers'];
      if (!exposed) return;
      answer.headers['access-control-expose-headers'] = exposed
        .split(',')
        .map((h) => h.trim())
        .filter((h) => h.toLowerCase() !== 'etag')
        .join(', ');
    },
  },
];
