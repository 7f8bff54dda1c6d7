import type { Answer, Exchange } from '../../sabotage-catalogue.js';
import { behaviourMutant } from './behaviour-mutant.js';
import {
  bodyOf,
  createdImage,
  direct,
  EXPORT_READ,
  IMAGE_READ,
  keyOf,
  PREDICTION_READ,
  route,
  SHARE_PAGE,
  SHARE_READ,
} from './proxy-effects.js';

/**
 * Deleting an image (either route) removes it and what was derived from it: its predictions, their
 * segmentations and exports, and their shares and pages. A mutant leaves one kind of derived
 * thing behind (it answers what it answered before the delete), or deletes on one route only, or
 * deletes a neighbour too.
 */

const DELETE_UPLOAD = 'delete-upload-image-id.aa3f28';
const DELETE_IMAGE = 'delete-image-image-id.e315bc';
const DELETE_ROW = 'image-upload-status.7e0915';
const CONFINED_404 = 'errors.ca0aa9';
const TRIGGERS = [
  ['deleteImage', 200],
  ['deleteUpload', 200],
] as const;

type Kind = 'prediction' | 'export' | 'share' | 'page';

/** Which image each prediction, segmentation, share and page token comes from, and what a read answered. */
function lineage() {
  const imageOf = new Map<string, string>();
  const answered = new Map<string, Answer>();
  const deleted = new Set<string>();
  const see = (exchange: Exchange, answer: Answer) => {
    const r = route(exchange);
    const body = answer.status === 200 ? bodyOf(answer.body) : undefined;
    if (exchange.method === 'POST' && r === '/api/v1/predict' && body?.prediction_id) {
      const asked = bodyOf<{ image_id: string }>(exchange.body);
      if (asked) imageOf.set(String(body.prediction_id), asked.image_id);
    }
    if (exchange.method === 'GET' && PREDICTION_READ.test(r) && body?.segmentation_id)
      imageOf.set(String(body.segmentation_id), String(body.image_id));
    if (r === '/api/v1/shares' && body?.id && imageOf.has(String(body.segmentation_id))) {
      const image = imageOf.get(String(body.segmentation_id))!;
      imageOf.set(String(body.id), image);
      const token = typeof body.url === 'string' ? body.url.split('/share/')[1] : undefined;
      if (token) imageOf.set(token, image);
    }
    if (exchange.method === 'GET' && answer.status === 200)
      answered.set(exchange.path, { ...answer, headers: { ...answer.headers } });
  };
  /** The image a read is derived from, and of what kind. */
  const derived = (exchange: Exchange): [Kind, string | undefined] | undefined => {
    const r = route(exchange);
    for (const [kind, pattern] of [
      ['prediction', PREDICTION_READ],
      ['export', EXPORT_READ],
      ['share', SHARE_READ],
      ['page', SHARE_PAGE],
    ] as const) {
      const id = pattern.exec(r)?.[1];
      if (id) return [kind, imageOf.get(id)];
    }
    return undefined;
  };
  return { see, derived, answered, deleted };
}

function keeps(
  edit: string,
  kinds: readonly Kind[],
  summary: string,
  sentences: string[],
  onlyRoute?: RegExp,
) {
  return behaviourMutant({
    rule: 'delete-cascade',
    edit,
    summary,
    sentences,
    triggers: TRIGGERS,
    make() {
      const memory = lineage();
      return {
        response: (exchange, answer) => {
          const r = route(exchange);
          if (
            exchange.method === 'DELETE' &&
            answer.status === 200 &&
            IMAGE_READ.test(r) &&
            (!onlyRoute || onlyRoute.test(r))
          )
            memory.deleted.add(IMAGE_READ.exec(r)![1]);
          const from =
            exchange.method === 'GET' && answer.status === 404 ? memory.derived(exchange) : undefined;
          const before = memory.answered.get(exchange.path);
          if (from && kinds.includes(from[0]) && from[1] && memory.deleted.has(from[1]) && before) {
            Object.assign(answer, {
              status: before.status,
              headers: { ...before.headers },
              body: before.body,
            });
            return;
          }
          memory.see(exchange, answer);
        },
      };
    },
  });
}

const ALL: Kind[] = ['prediction', 'export', 'share', 'page'];

export const deleteCascadeMutants = () => [
  keeps('predictions-kept', ['prediction'], "A deleted image's predictions still read as before.", [
    DELETE_IMAGE,
    DELETE_UPLOAD,
    DELETE_ROW,
  ]),
  keeps('exports-kept', ['export'], "A deleted image's segmentation still exports.", [
    DELETE_IMAGE,
    DELETE_UPLOAD,
    CONFINED_404,
  ]),
  keeps('shares-kept', ['share'], "A deleted image's share still reads as before.", [
    DELETE_IMAGE,
    DELETE_UPLOAD,
    CONFINED_404,
  ]),
  keeps('share-page-kept', ['page'], "A deleted image's share page still opens.", [
    DELETE_IMAGE,
    DELETE_UPLOAD,
    'authentication.6c757e',
  ]),
  keeps(
    'upload-route-keeps-derived',
    ALL,
    'The second delete route (DELETE /upload/{id}) removes the image but leaves what was derived from it.',
    [DELETE_UPLOAD, DELETE_ROW],
    /^\/api\/v1\/upload\//,
  ),
  behaviourMutant({
    rule: 'delete-cascade',
    edit: 'deletes-neighbour',
    summary:
      'An effect done twice: deleting an image also deletes the image created just before it by the same key.',
    sentences: [DELETE_IMAGE, DELETE_UPLOAD, DELETE_ROW],
    triggers: TRIGGERS,
    make(effect) {
      const created = new Map<string, string[]>();
      return {
        response: async (exchange, answer, state) => {
          const key = keyOf(exchange);
          const image = createdImage(exchange, answer);
          if (image) created.set(key, [...(created.get(key) ?? []), image.id]);
          const id = IMAGE_READ.exec(route(exchange))?.[1];
          if (exchange.method !== 'DELETE' || answer.status !== 200 || !id) return;
          const mine = created.get(key) ?? [];
          const at = mine.indexOf(id);
          created.set(
            key,
            mine.filter((x) => x !== id),
          );
          const neighbour = at > 0 ? mine[at - 1] : undefined;
          if (!neighbour) return;
          created.set(
            key,
            created.get(key)!.filter((x) => x !== neighbour),
          );
          await direct(state, 'DELETE', `/api/v1/image/${neighbour}`, key);
          effect(exchange, `the image created before it (${neighbour}) deleted too`);
        },
      };
    },
  }),
];
