import { asOwner, caller, isJson, match, memoMap, others, readJson, writeJson } from '../edit-helpers.js';
import type { Answer, Exchange, Regression } from '../regression.js';
import { editImages } from './image-edits.js';

interface Plan {
  part_size: number;
  upload_id: string;
  urls: Array<{ part_number: number; url: string }>;
}

/** The upload plan of an answer that opened a resumable upload (JSON upload or image-record creation). */
function editPlan(
  exchange: Exchange,
  answer: Answer,
  edit: (plan: Plan, body: Record<string, unknown>) => void,
): void {
  if (answer.status !== 200 || !isJson(answer)) return;
  if (!match(exchange, 'POST', /^\/api\/v1\/(upload|image)$/)) return;
  const body = readJson(answer);
  const plan = body.upload as Plan | null | undefined;
  if (!plan) return;
  edit(plan, body);
  writeJson(answer, body);
}

const COMPLETE = /^\/api\/v1\/upload\/([0-9a-fA-F-]{36})\/complete$/;
const ABORT = /^\/api\/v1\/upload\/([0-9a-fA-F-]{36})\/abort$/;

/** The resumable flow: the plan, part PUTs to presigned URLs, complete, abort. */
export const RESUMABLE_REGRESSIONS: Regression[] = [
  {
    id: 'A-RES-PARTS-ZERO-BASED',
    area: 'resumable',
    description:
      'The plan numbers its parts from 0 (a Python enumerate) while the URLs stay those of parts 1..n',
    violates:
      "UploadPartUrl.part_number: minimum 1; S3 part numbers 1..10000 (the plan's `part_number` names the part of its `url`)",
    statedIn: 'document',
    response(exchange, answer) {
      editPlan(exchange, answer, (plan) => {
        for (const item of plan.urls) item.part_number -= 1;
      });
    },
  },
  {
    id: 'A-RES-PLAN-FLOOR-DIVISION',
    area: 'resumable',
    description:
      'The part count is size // part_size (floor, not ceiling): a file that does not fill its last part gets one URL too few',
    violates:
      'Image-record creation: "the response also carries `upload` with presigned part URLs sized for `size`"',
    statedIn: 'interface',
    response(exchange, answer) {
      editPlan(exchange, answer, (plan) => {
        if (plan.urls.length > 1) plan.urls.pop();
      });
    },
  },
  {
    id: 'A-RES-CREATE-NO-PLAN',
    area: 'resumable',
    description:
      'Image-record creation with `resumable: true` answers `upload: null` (the plan is built only on POST /upload)',
    violates:
      'Image-record creation: "`resumable` (boolean; when true the response also carries `upload` with presigned part URLs sized for `size`)"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'POST', /^\/api\/v1\/image$/)) return;
      editPlan(exchange, answer, (_plan, body) => {
        body.upload = null;
      });
    },
  },
  {
    id: 'A-RES-PART-ETAG-UNQUOTED',
    area: 'resumable',
    description: 'A part PUT answers its ETag without the quotes S3 puts around it',
    violates:
      'DESIGN.md, presigned parts: "PUT of a part answers 200 with a quoted `ETag` (MD5 of the part)"; RFC 9110 entity-tag syntax',
    statedIn: 'document',
    response(exchange, answer) {
      if (exchange.method !== 'PUT' || !answer.headers.etag) return;
      answer.headers.etag = answer.headers.etag.replaceAll('"', '');
    },
  },
  {
    id: 'A-RES-COMPLETE-200',
    area: 'resumable',
    description: 'Complete answers 200 instead of 202 (the handler lost its status_code=202)',
    violates: 'Complete: "Response 202: `{status: "processing"}`"; "Known: ... 202 for complete"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (match(exchange, 'POST', COMPLETE) && answer.status === 202) answer.status = 200;
    },
  },
  {
    id: 'A-RES-COMPLETE-SUBSET-IGNORED',
    area: 'resumable',
    description: 'Complete ignores an explicit `parts` list and assembles every part found in storage',
    violates: 'Complete: "Send `parts` only to assemble an explicit subset."',
    statedIn: 'interface',
    request(exchange) {
      if (!match(exchange, 'POST', COMPLETE) || exchange.body.length === 0) return;
      exchange.body = Buffer.from('{}');
      exchange.headers.set('content-type', 'application/json');
    },
  },
  {
    id: 'A-RES-COMPLETE-AGAIN-202',
    area: 'resumable',
    description:
      'Complete on an image that is no longer uploading (ready, failed, processing) answers 202 again instead of refusing',
    violates:
      'States: only `uploading` --complete--> `processing`; DESIGN/document: "A complete or abort on an image that is not in `uploading`: 422"',
    statedIn: 'document',
    response(exchange, answer) {
      if (!match(exchange, 'POST', COMPLETE) || answer.status !== 422 || !isJson(answer)) return;
      if (typeof readJson(answer).detail !== 'string') return;
      answer.status = 202;
      writeJson(answer, { status: 'processing' });
    },
  },
  {
    id: 'A-RES-ABORT-DELETES-RECORD',
    area: 'resumable',
    description:
      'Abort deletes the image record with its chunks: the image answers 404 afterwards and its cap slot is freed',
    violates:
      'States: "`uploading` | abort | `failed` | uploaded chunks discarded; record stays and still counts against the storage cap"',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const found = match(exchange, 'POST', ABORT);
      const org = caller(exchange, state);
      if (!found || answer.status !== 200 || !org) return;
      await state.upstream('DELETE', `/api/v1/upload/${found[1]}`, { key: org.key });
    },
  },
  {
    id: 'A-RES-COMPLETE-OTHER-ORG',
    area: 'resumable',
    description: "Complete looks the image up by id alone: another organization's upload can be completed",
    violates:
      'Complete errors "403, 404"; Authentication 3: "A resource of another organization is answered as not found (404)."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'POST', COMPLETE) || (answer.status !== 404 && answer.status !== 403)) return;
      for (const org of others(exchange, state)) {
        const leaked = await asOwner(exchange, state, org);
        if (leaked.status === 404) continue;
        Object.assign(answer, leaked);
        return;
      }
    },
  },
  {
    id: 'A-RES-READY-NO-SHAPE',
    area: 'resumable',
    description: 'The asynchronous conversion of a resumable upload marks it ready but never saves `shape`',
    violates: 'States: "`processing` | conversion finishes | `ready` | `shape` populated"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const resumable = memoMap<string, true>(state, 'resumable images');
      editImages(exchange, answer, (image) => {
        if (image.upload_status === 'uploading') resumable.set(String(image.id), true);
        if (resumable.has(String(image.id)) && image.upload_status === 'ready') image.shape = null;
      });
    },
  },
];
