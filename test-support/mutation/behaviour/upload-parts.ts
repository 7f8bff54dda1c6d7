import { createHash } from 'node:crypto';
import type { Answer, Exchange } from '../../sabotage-catalogue.js';
import { behaviourMutant } from './behaviour-mutant.js';
import { bodyOf, createdImage, IMAGE_READ, route } from './proxy-effects.js';

/**
 * The resumable flow: a plan's part URLs take chunks while the upload is open (complete, abort and
 * delete close it), complete assembles the parts given (all discovered when none are), and abort
 * marks the image failed at once.
 */

const PLAN_URLS = 'upload-plan-object-upload.771efe';
const DISCOVER = 'post-upload-image-id-complete.044607';
const SUBSET = 'post-upload-image-id-complete.59b055';
const ABORT = 'post-upload-image-id-abort.df4e1e';
const ABORT_ROW = 'image-upload-status.114e8a';
const DELETE_ABORTS = 'delete-upload-image-id.aa3f28';
const COMPLETE_ROW = 'image-upload-status.a25136';

const isPartPut = (exchange: Exchange) => exchange.method === 'PUT' && !route(exchange).startsWith('/api/');
const closing = {
  complete: /^\/api\/v1\/upload\/([^/]+)\/complete$/,
  abort: /^\/api\/v1\/upload\/([^/]+)\/abort$/,
  delete: /^\/api\/v1\/upload\/([^/]+)$/,
};

/** A part URL still takes chunks after its upload was closed by `how`: the store answers 200 and an ETag. */
function partUrlLive(how: keyof typeof closing, sentences: string[]) {
  return behaviourMutant({
    rule: 'upload-parts',
    edit: `part-url-live-after-${how}`,
    summary: `A part URL still accepts a chunk after the upload's ${how}.`,
    sentences,
    triggers: [
      [
        { complete: 'completeUpload', abort: 'abortUpload', delete: 'deleteUpload' }[how],
        how === 'complete' ? 202 : 200,
      ],
    ],
    make() {
      const imageOfPart = new Map<string, string>();
      const closed = new Set<string>();
      return {
        response: (exchange: Exchange, answer: Answer) => {
          const image = createdImage(exchange, answer);
          const plan = image?.upload as { urls?: Array<{ url: string }> } | null | undefined;
          for (const { url } of plan?.urls ?? []) imageOfPart.set(new URL(url).pathname, image!.id);
          const id = closing[how].exec(route(exchange))?.[1];
          const method = how === 'delete' ? 'DELETE' : 'POST';
          if (id && exchange.method === method && answer.status < 300) closed.add(id);
          const owner = isPartPut(exchange) ? imageOfPart.get(route(exchange)) : undefined;
          if (!owner || !closed.has(owner) || answer.status < 400) return;
          answer.status = 200;
          answer.headers = { etag: `"${createHash('md5').update(exchange.body).digest('hex')}"` };
          answer.body = Buffer.alloc(0);
        },
      };
    },
  });
}

export const uploadPartMutants = () => [
  partUrlLive('complete', [PLAN_URLS, COMPLETE_ROW]),
  partUrlLive('abort', [PLAN_URLS, ABORT, ABORT_ROW]),
  partUrlLive('delete', [PLAN_URLS, DELETE_ABORTS]),
  behaviourMutant({
    rule: 'upload-parts',
    edit: 'subset-ignored',
    summary: 'Complete with an explicit parts list assembles every uploaded part (the list is ignored).',
    sentences: [SUBSET, DISCOVER],
    triggers: [['completeUpload', 202]],
    make: () => ({
      request: (exchange: Exchange) => {
        if (exchange.method !== 'POST' || !closing.complete.test(route(exchange))) return;
        const body = bodyOf<{ parts?: unknown[] }>(exchange.body);
        if (body?.parts?.length) exchange.body = Buffer.from(JSON.stringify({ parts: [] }));
      },
    }),
  }),
  behaviourMutant({
    rule: 'upload-parts',
    edit: 'subset-reordered',
    summary:
      "Complete pairs the parts given with each other's numbers (reversed): the subset is assembled in the wrong order.",
    sentences: [SUBSET],
    triggers: [['completeUpload', 202]],
    make: () => ({
      request: (exchange: Exchange) => {
        if (exchange.method !== 'POST' || !closing.complete.test(route(exchange))) return;
        const body = bodyOf<{ parts?: Array<{ part_number: number; etag: string }> }>(exchange.body);
        if (!body?.parts || body.parts.length < 2) return;
        const numbers = body.parts.map((p) => p.part_number).reverse();
        const parts = body.parts.map((p, i) => ({ ...p, part_number: numbers[i] }));
        exchange.body = Buffer.from(JSON.stringify({ ...body, parts }));
      },
    }),
  }),
  behaviourMutant({
    rule: 'upload-parts',
    edit: 'abort-one-step-late',
    summary: 'Abort applied one step late: the first read after it still says uploading.',
    sentences: [ABORT, ABORT_ROW],
    triggers: [['abortUpload', 200]],
    make() {
      const aborted = new Set<string>();
      return {
        response: (exchange: Exchange, answer: Answer) => {
          const abortedId = closing.abort.exec(route(exchange))?.[1];
          if (abortedId && answer.status === 200) aborted.add(abortedId);
          const id = IMAGE_READ.exec(route(exchange))?.[1];
          if (!id || exchange.method !== 'GET' || answer.status !== 200 || !aborted.delete(id)) return;
          const image = bodyOf(answer.body);
          if (image?.upload_status !== 'failed') return;
          image.upload_status = 'uploading';
          delete image.upload_error;
          answer.body = Buffer.from(JSON.stringify(image));
        },
      };
    },
  }),
];
