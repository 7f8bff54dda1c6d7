import { copyAnswer, isJson, jsonAnswer, match, memoMap, readJson, writeJson } from '../edit-helpers.js';
import type { Answer, Exchange, Regression } from '../regression.js';
import { editImage, IMAGE_READ } from './upload.js';

interface Plan {
  part_size: number;
  upload_id: string;
  urls: Array<{ part_number: number; url: string }>;
  [field: string]: unknown;
}

const UPLOAD = /^\/api\/v1\/upload$/;
const CREATE_IMAGE = /^\/api\/v1\/image$/;
const COMPLETE = /^\/api\/v1\/upload\/([^/]+)\/complete$/;
const ABORT = /^\/api\/v1\/upload\/([^/]+)\/abort$/;

/** The plan of an answer that opens a resumable upload (Mode B upload, or image creation), edited in place. */
function editPlan(answer: Answer, edit: (plan: Plan, imageId: string) => void): void {
  if (answer.status !== 200 || !isJson(answer)) return;
  const body = readJson<{ upload?: Plan | null; image?: { id: string }; id?: string }>(answer);
  if (!body.upload) return;
  edit(body.upload, body.image?.id ?? body.id ?? '');
  writeJson(answer, body);
}

/** Whether the request is one that may open a resumable upload and answer its plan. */
function opensUpload(exchange: Exchange): boolean {
  return Boolean(match(exchange, 'POST', UPLOAD) ?? match(exchange, 'POST', CREATE_IMAGE));
}

/** The resumable flow: plan, presigned parts, complete, abort, polling. */
export const RESUMABLE_REGRESSIONS: Regression[] = [
  {
    id: 'B-RES-PART-NUMBERS-FROM-ZERO',
    area: 'resumable',
    description:
      'The plan numbers its parts from 0 (an array index) while storage numbers them from 1: the plan no longer matches the uploaded parts',
    violates: 'UploadPartUrl.part_number: "minimum: 1" (S3 part numbers start at 1)',
    statedIn: 'document',
    response(exchange, answer) {
      if (!opensUpload(exchange)) return;
      editPlan(answer, (plan) => {
        for (const part of plan.urls) part.part_number -= 1;
      });
    },
  },
  {
    id: 'B-RES-PART-SIZE-MIB',
    area: 'resumable',
    description: "The plan gives `part_size` in MiB (the config's unit) instead of bytes",
    violates: '"`part_size` | integer | bytes per chunk"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!opensUpload(exchange)) return;
      editPlan(answer, (plan) => {
        plan.part_size = Math.max(1, Math.round(plan.part_size / (1024 * 1024)));
      });
    },
  },
  {
    id: 'B-RES-PLAN-EXPOSES-STORAGE-KEY',
    area: 'resumable',
    description: 'The plan is the storage record serialized whole: it carries the internal object key',
    violates: '"The internal storage key is never exposed."',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!opensUpload(exchange)) return;
      editPlan(answer, (plan, imageId) => {
        plan.key = `uploads/${imageId}/original.tif`;
      });
    },
  },
  {
    id: 'B-RES-CREATE-IMAGE-NO-PLAN',
    area: 'resumable',
    description:
      'Image-record creation ignores `resumable: true` and answers `upload: null`: the client has nowhere to PUT its parts',
    violates:
      '"`resumable` (boolean; when true the response also carries `upload` with presigned part URLs sized for `size`)"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'POST', CREATE_IMAGE) || answer.status !== 200 || !isJson(answer)) return;
      const body = readJson<{ upload?: unknown }>(answer);
      if (!body.upload) return;
      body.upload = null;
      writeJson(answer, body);
    },
  },
  {
    id: 'B-RES-COMPLETE-200',
    area: 'resumable',
    description: "Complete answers 200 instead of 202 (the handler kept the framework's default)",
    violates: '"POST /api/v1/upload/{image_id}/complete ... Response 202: {status: "processing"}"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (match(exchange, 'POST', COMPLETE) && answer.status === 202) answer.status = 200;
    },
  },
  {
    id: 'B-RES-COMPLETE-IGNORES-PARTS',
    area: 'resumable',
    description:
      'Complete drops the `parts` list and always assembles every part found in storage (a wrong ETag is never noticed)',
    violates: '"Send `parts` only to assemble an explicit subset."',
    statedIn: 'interface',
    request(exchange) {
      if (!match(exchange, 'POST', COMPLETE) || exchange.body.length === 0) return;
      exchange.body = Buffer.from('{}');
      exchange.headers.set('content-type', 'application/json');
    },
  },
  {
    id: 'B-RES-COMPLETE-TWICE-ACCEPTED',
    area: 'resumable',
    description:
      'Complete skips the state check: an image already processing, ready or failed is answered 202 again',
    violates:
      'completeUpload 422 (x-assumed): "A complete or abort on an image that is not in `uploading`: 422 with a string `detail`"',
    statedIn: 'document',
    response(exchange, answer) {
      if (!match(exchange, 'POST', COMPLETE) || answer.status !== 422 || !isJson(answer)) return;
      if (typeof readJson(answer).detail !== 'string') return;
      Object.assign(answer, jsonAnswer(202, { status: 'processing' }));
    },
  },
  {
    id: 'B-RES-ABORT-STATUS-NOT-SAVED',
    area: 'resumable',
    description:
      'Abort discards the parts and answers, but the status update is lost: the image still reads `uploading`',
    violates:
      '"`uploading` | `POST /upload/{image_id}/abort` | | `failed` | uploaded chunks discarded; record stays"',
    statedIn: 'interface',
    response(exchange, answer, state) {
      const aborted = memoMap<string, true>(state, 'aborted');
      const abort = match(exchange, 'POST', ABORT);
      if (abort && answer.status === 200) return void aborted.set(abort[1].toLowerCase(), true);
      const read = match(exchange, 'GET', IMAGE_READ);
      if (!read || !aborted.has(read[2].toLowerCase())) return;
      editImage(exchange, answer, (image) => {
        image.upload_status = 'uploading';
        delete (image as { upload_error?: string }).upload_error;
      });
    },
  },
  {
    id: 'B-RES-POLL-CACHED',
    area: 'resumable',
    description:
      'GET /upload/{image_id} is served from a read cache filled at the first poll and never purged: the image never becomes `ready`',
    violates: '"GET `/api/v1/upload/{image_id}` - Response: Image. Poll until `upload_status` is `ready`."',
    statedIn: 'interface',
    request(exchange, state) {
      const found = match(exchange, 'GET', /^\/api\/v1\/upload\/([^/]+)$/);
      if (!found) return;
      const cached = memoMap<string, Answer>(state, 'polls').get(
        `${exchange.headers.get('authorization')} ${found[1]}`,
      );
      if (cached) return copyAnswer(cached);
    },
    response(exchange, answer, state) {
      const found = match(exchange, 'GET', /^\/api\/v1\/upload\/([^/]+)$/);
      if (!found || answer.status !== 200) return;
      const status = isJson(answer) ? readJson<{ upload_status?: string }>(answer).upload_status : undefined;
      // Only an image on its way is cached: a ready one is what the client waits for anyway.
      if (status === 'uploading' || status === 'processing')
        memoMap<string, Answer>(state, 'polls').set(
          `${exchange.headers.get('authorization')} ${found[1]}`,
          copyAnswer(answer),
        );
    },
  },
];
