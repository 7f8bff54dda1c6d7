import type { Answer, Exchange, ProxyState } from '../../sabotage-catalogue.js';
import { behaviourMutant } from './behaviour-mutant.js';
import {
  bodyOf,
  createdImage,
  direct,
  editJson,
  IMAGE_READ,
  isCreation,
  keyOf,
  organizationOf,
  route,
  setJson,
  STORAGE_402,
} from './proxy-effects.js';

/**
 * The storage cap: every image of the organization counts from its creation (either upload mode or
 * image-record creation) until it is deleted, failed and aborted ones included; the creation past
 * the cap answers 402 about that limit, and a delete frees a slot.
 */

const CAP = 'limits.05d958';
const FAILED_COUNT = 'limits.732550';
const ABORT_ROW = 'image-upload-status.114e8a';
const DELETE_ROW = 'image-upload-status.7e0915';
const RECORD_CAP = 'image-record-creation-resumable-flow.2a2033';
const DETAIL_402 = 'errors.8e99a7';
const TRIGGERS = [
  ['uploadImage', 200],
  ['uploadImage', 402],
  ['createImage', 200],
  ['createImage', 402],
] as const;

const shared = (state: ProxyState, key: string) => key === state.keys.main || key === state.keys.other;
const isDelete = (exchange: Exchange, answer: Answer) =>
  exchange.method === 'DELETE' && IMAGE_READ.test(route(exchange)) && answer.status === 200;

/** Undoes a creation the mock accepted and answers it as refused by the cap. */
async function refuse(exchange: Exchange, answer: Answer, state: ProxyState, imageId: string) {
  const key = keyOf(exchange);
  await direct(state, 'DELETE', `/api/v1/image/${imageId}`, key);
  const org = await organizationOf(state, key);
  if (org) setJson(answer, 402, { detail: STORAGE_402(org) });
}

export const storageCapMutants = () => [
  behaviourMutant({
    rule: 'storage-cap',
    edit: 'cap-one-early',
    summary: 'The cap applied one step early: the creation that fills the last slot answers 402.',
    sentences: [CAP, RECORD_CAP],
    triggers: TRIGGERS,
    make: () => ({
      response: async (exchange, answer, state) => {
        const image = createdImage(exchange, answer);
        const key = keyOf(exchange);
        if (!image || shared(state, key)) return;
        const org = await organizationOf(state, key);
        if (org && org.usage.images >= org.plan.storage_cap_images)
          await refuse(exchange, answer, state, image.id);
      },
    }),
  }),
  behaviourMutant({
    rule: 'storage-cap',
    edit: 'delete-keeps-slot',
    summary: 'An effect undone: a deleted image still takes its slot (deleting frees nothing).',
    sentences: [DELETE_ROW, FAILED_COUNT],
    triggers: [...TRIGGERS, ['deleteImage', 200], ['deleteUpload', 200]],
    make() {
      const ghosts = new Map<string, number>();
      return {
        response: async (exchange, answer, state) => {
          const key = keyOf(exchange);
          if (shared(state, key)) return;
          if (isDelete(exchange, answer)) ghosts.set(key, (ghosts.get(key) ?? 0) + 1);
          const image = createdImage(exchange, answer);
          if (!image || !ghosts.get(key)) return;
          const org = await organizationOf(state, key);
          if (org && org.usage.images + ghosts.get(key)! > org.plan.storage_cap_images)
            await refuse(exchange, answer, state, image.id);
        },
      };
    },
  }),
  behaviourMutant({
    rule: 'storage-cap',
    edit: 'failed-not-counted',
    summary:
      'Failed and aborted images stop counting: a creation refused at the cap goes through in the slot of a failed image, which still reads as before.',
    sentences: [FAILED_COUNT, ABORT_ROW],
    triggers: [...TRIGGERS, ['abortUpload', 200], ['getUpload', 200], ['getImage', 200]],
    make() {
      const failed = new Map<string, Map<string, Buffer>>();
      const ghosts = new Map<string, Buffer>();
      return {
        response: async (exchange, answer, state) => {
          const key = keyOf(exchange);
          const readId = IMAGE_READ.exec(route(exchange))?.[1];
          if (readId && exchange.method === 'GET') {
            if (answer.status === 404 && ghosts.has(readId)) {
              setJson(answer, 200, bodyOf(ghosts.get(readId)!));
              return;
            }
            if (
              answer.status === 200 &&
              bodyOf<{ upload_status: string }>(answer.body)?.upload_status === 'failed'
            ) {
              if (!failed.has(key)) failed.set(key, new Map());
              failed.get(key)!.set(readId, answer.body);
            }
          }
          if (exchange.method === 'DELETE' && readId) {
            failed.get(key)?.delete(readId);
            ghosts.delete(readId);
          }
          if (!isCreation(exchange) || answer.status !== 402 || shared(state, key)) return;
          const [victim, record] = [...(failed.get(key) ?? new Map<string, Buffer>())][0] ?? [];
          if (!victim) return;
          failed.get(key)!.delete(victim);
          ghosts.set(victim, record);
          await direct(state, 'DELETE', `/api/v1/image/${victim}`, key);
          const again = await fetch(`${state.target}${exchange.path}`, {
            method: 'POST',
            headers: exchange.headers,
            body: exchange.body,
          });
          answer.status = again.status;
          answer.headers['content-type'] = again.headers.get('content-type') ?? 'application/json';
          answer.body = Buffer.from((await again.text()).replaceAll(state.target, state.self));
        },
      };
    },
  }),
  behaviourMutant({
    rule: 'storage-cap',
    edit: '402-names-analyses',
    summary: "The storage cap's 402 explains the monthly analysis cap.",
    sentences: [DETAIL_402],
    triggers: TRIGGERS,
    make: () => ({
      response: (exchange, answer) => {
        if (isCreation(exchange) && answer.status === 402)
          editJson(
            answer,
            (e) => (e.detail = 'Monthly analysis cap reached: the plan allows no more analyses this month.'),
          );
      },
    }),
  }),
];
