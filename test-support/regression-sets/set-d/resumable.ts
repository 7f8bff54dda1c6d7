import { createHash } from 'node:crypto';
import type { Regression } from '../regression.js';
import {
  asOwner,
  isJson,
  jsonAnswer,
  match,
  memoMap,
  others,
  pathname,
  readJson,
  writeJson,
} from '../edit-helpers.js';

const PART_PUT = /^\/storage\/uploads\/([^/]+)\/parts\/(\d+)$/;

interface Plan {
  upload_id: string;
  urls: Array<{ part_number: number | string; url: string }>;
}

/** The plan of an answer that opens a resumable upload (POST /upload JSON or POST /image). */
function planOf(body: Record<string, unknown>): { imageId?: string; plan?: Plan } {
  const image = (body.image ?? body) as { id?: string };
  return { imageId: image.id, plan: (body.upload ?? undefined) as Plan | undefined };
}

export const RESUMABLE: Regression[] = [
  {
    id: 'D-RES-ABORT-PARTS-STILL-ACCEPTED',
    area: 'resumable',
    description:
      "Abort marks the image failed but never aborts the storage multipart upload: the plan's part URLs keep taking PUTs",
    violates:
      'State table: "`uploading` | `POST /upload/{image_id}/abort` | | `failed` | uploaded chunks discarded"',
    statedIn: 'interface',
    request(exchange, state) {
      const found = match(exchange, 'PUT', PART_PUT);
      if (!found || !memoMap<string, true>(state, 'aborted-uploads').has(found[1])) return;
      const etag = `"${createHash('md5').update(exchange.body).digest('hex')}"`;
      return { status: 200, headers: { etag }, body: Buffer.alloc(0) };
    },
    response(exchange, answer, state) {
      const uploads = memoMap<string, string>(state, 'upload-of-image');
      if (
        (match(exchange, 'POST', /^\/api\/v1\/upload$/) || match(exchange, 'POST', /^\/api\/v1\/image$/)) &&
        answer.status === 200 &&
        isJson(answer)
      ) {
        const { imageId, plan } = planOf(readJson(answer));
        if (imageId && plan?.upload_id) uploads.set(imageId, plan.upload_id);
      }
      const aborted = match(exchange, 'POST', /^\/api\/v1\/upload\/([^/]+)\/abort$/);
      if (aborted && answer.status === 200) {
        const uploadId = uploads.get(aborted[1].toLowerCase());
        if (uploadId) memoMap<string, true>(state, 'aborted-uploads').set(uploadId, true);
      }
    },
  },
  {
    id: 'D-RES-ABORT-OTHER-ORG',
    area: 'resumable',
    description:
      "Abort finds the image by id alone: another organization's upload in progress is aborted and turns failed",
    violates:
      '"A key is scoped to the organization that owns it; every resource read or created is confined to that organization. A resource of another organization is answered as not found (404)."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'POST', /^\/api\/v1\/upload\/([^/]+)\/abort$/) || answer.status !== 404) return;
      for (const org of others(exchange, state)) {
        const done = await asOwner(exchange, state, org);
        if (done.status !== 404) {
          Object.assign(answer, done);
          return;
        }
      }
    },
  },
  {
    id: 'D-RES-COMPLETE-NO-BODY-422',
    area: 'resumable',
    description:
      'Complete declares its body as required (the `parts` model without a default): a complete with no body is refused 422 "Field required"',
    violates:
      '"Body optional: `{parts: [...]}`. With no body or empty `parts`, the service discovers the uploaded parts and ETags from storage."',
    statedIn: 'interface',
    request(exchange) {
      if (match(exchange, 'POST', /^\/api\/v1\/upload\/([^/]+)\/complete$/) && exchange.body.length === 0)
        return jsonAnswer(422, {
          detail: [{ loc: ['body'], msg: 'Field required', type: 'missing', input: null, ctx: {} }],
        });
    },
  },
  {
    id: 'D-RES-PART-ETAG-DROPPED',
    area: 'resumable',
    description:
      'The storage gateway in front of the part URLs passes the status of a part PUT but not its `ETag`: a client cannot list the parts it wants to assemble',
    violates:
      'Complete: "Each part listed must be a part of the plan that was PUT, with the ETag its PUT answered" (openapi.yaml, completeUpload)',
    statedIn: 'document',
    response(exchange, answer) {
      if (match(exchange, 'PUT', PART_PUT)) delete answer.headers.etag;
    },
  },
  {
    id: 'D-RES-PART-NUMBER-STRING',
    area: 'resumable',
    description:
      'The plan\'s URLs are built from a dict keyed by part number and serialized as is: each `part_number` is a string ("1")',
    violates: 'Upload plan field `urls`: "items `{part_number: integer, url: string}`"',
    statedIn: 'interface',
    response(exchange, answer) {
      const opens =
        match(exchange, 'POST', /^\/api\/v1\/upload$/) || match(exchange, 'POST', /^\/api\/v1\/image$/);
      if (!opens || answer.status !== 200 || !isJson(answer)) return;
      const body = readJson(answer);
      const { plan } = planOf(body);
      if (!plan?.urls) return;
      for (const part of plan.urls) part.part_number = String(part.part_number);
      writeJson(answer, body);
    },
  },
  {
    id: 'D-RES-CREATE-METADATA-DROPPED',
    area: 'resumable',
    description:
      'Image-record creation saves the record before it copies `metadata` from the request: the created record answers `metadata: {}`, and so does every later read',
    violates:
      'CreatedImage.metadata: the free-form `metadata` of CreateImageRequest echoed in the created record',
    statedIn: 'document',
    response(exchange, answer) {
      if (pathname(exchange) !== '/api/v1/image' || exchange.method !== 'POST') return;
      if (answer.status !== 200 || !isJson(answer)) return;
      const body = readJson(answer);
      if (body.metadata && typeof body.metadata === 'object' && Object.keys(body.metadata).length) {
        body.metadata = {};
        writeJson(answer, body);
      }
    },
  },
];
