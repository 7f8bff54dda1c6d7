import type { Answer, Exchange, ProxyState } from '../../sabotage-catalogue.js';
import { behaviourMutant } from './behaviour-mutant.js';
import { bodyOf, editJson, keyOf, route } from './proxy-effects.js';

/**
 * Organization confinement: a key reads, changes and lists only its own organization's
 * resources, and another organization's id is answered exactly as a missing one (404).
 */

const CONFINED = 'what-the-service-does.6c81f6';
const SCOPED = 'authentication.289aee';
const FOREIGN_404 = 'authentication.01ea9f';
const ERR_404 = 'errors.ca0aa9';
const MODELS = 'get-models.fff67d';

const ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const ID_FIELDS = ['id', 'prediction_id', 'segmentation_id', 'image_id'];
const TRIGGERS = [
  ['getUpload', 404],
  ['getImage', 404],
  ['getPrediction', 404],
  ['getShare', 404],
  ['createPrediction', 404],
  ['createShare', 404],
  ['exportMeasurementsCsv', 404],
  ['deleteImage', 404],
  ['revokeShare', 404],
] as const;

/** The key that created or read each id first: its owner. */
function owners() {
  const owner = new Map<string, string>();
  const see = (exchange: Exchange, answer: Answer) => {
    if (answer.status !== 200 || !/json/.test(answer.headers['content-type'] ?? '')) return;
    const key = keyOf(exchange);
    if (!key) return;
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object')
        for (const [k, v] of Object.entries(value)) {
          if (ID_FIELDS.includes(k) && typeof v === 'string' && !owner.has(v)) owner.set(v, key);
          else walk(v);
        }
    };
    walk(bodyOf(answer.body));
  };
  /** The owner of a foreign id in the request's path or body, if it has one. */
  const foreign = (exchange: Exchange): string | undefined => {
    const key = keyOf(exchange);
    const text = `${route(exchange)} ${exchange.method === 'POST' ? exchange.body.toString('utf8') : ''}`;
    for (const id of text.match(ID) ?? []) {
      const o = owner.get(id.toLowerCase());
      if (o && o !== key) return o;
    }
    return undefined;
  };
  return { see, foreign };
}

/** Answers that 404 for a foreign id get `edit`. */
function foreign404(edit: string, summary: string, change: (answer: Answer) => void, skip?: RegExp) {
  return behaviourMutant({
    rule: 'confinement',
    edit,
    summary,
    sentences: [FOREIGN_404, ERR_404, CONFINED],
    triggers: TRIGGERS,
    make() {
      const memory = owners();
      return {
        response: (exchange, answer) => {
          memory.see(exchange, answer);
          if (answer.status === 404 && memory.foreign(exchange) && !skip?.test(route(exchange)))
            change(answer);
        },
      };
    },
  });
}

/** The request goes on with the owner's key when it names a foreign id (the check forgot the organization). */
function actsAsOwner(edit: string, summary: string, methods: string[]) {
  return behaviourMutant({
    rule: 'confinement',
    edit,
    summary,
    sentences: [CONFINED, SCOPED, FOREIGN_404],
    triggers: TRIGGERS,
    make() {
      const memory = owners();
      return {
        request: (exchange: Exchange) => {
          const owner = methods.includes(exchange.method) ? memory.foreign(exchange) : undefined;
          if (owner) exchange.headers.set('authorization', `Bearer ${owner}`);
        },
        response: (exchange: Exchange, answer: Answer) => memory.see(exchange, answer),
      };
    },
  });
}

export const confinementMutants = () => [
  foreign404(
    'foreign-404-says-so',
    "A 404 for another organization's id says that it belongs to another organization.",
    (answer) =>
      editJson(
        answer,
        (e) =>
          (e.detail = 'This resource belongs to another organization and is not accessible with this key.'),
      ),
  ),
  foreign404(
    'foreign-404-header',
    "A 404 for another organization's id carries a header a missing id's does not.",
    (answer) => (answer.headers['x-resource-owner'] = 'other-organization'),
  ),
  foreign404(
    'foreign-403',
    "Another organization's id answers 403 (not accessible) where a missing one answers 404.",
    (answer) => {
      answer.status = 403;
      editJson(answer, (e) => (e.detail = 'Not accessible with this key.'));
    },
    // complete and abort may answer 403 for an image the key cannot reach (errors table)
    /\/(complete|abort)$/,
  ),
  actsAsOwner(
    'foreign-read',
    "Reads of another organization's ids are answered (GET ignores the organization).",
    ['GET'],
  ),
  actsAsOwner(
    'foreign-write',
    "Another organization's ids can be predicted on, shared, revoked and deleted.",
    ['POST', 'DELETE'],
  ),
  behaviourMutant({
    rule: 'confinement',
    edit: 'models-listed-for-the-previous-key',
    summary:
      'GET /models answers the list of the key that asked before (a cache keyed without the organization).',
    sentences: [MODELS, 'what-the-service-does.692a70', SCOPED],
    triggers: [['listModels', 200]],
    make() {
      let previous: { key: string; body: Buffer } | undefined;
      return {
        response: (exchange: Exchange, answer: Answer, _state: ProxyState) => {
          if (exchange.method !== 'GET' || route(exchange) !== '/api/v1/models' || answer.status !== 200)
            return;
          const key = keyOf(exchange);
          const own = answer.body;
          if (previous && previous.key !== key) answer.body = previous.body;
          previous = { key, body: own };
        },
      };
    },
  }),
];
