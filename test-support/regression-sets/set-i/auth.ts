import type { Regression } from '../regression.js';
import { asOwner, bearer, jsonAnswer, match, memoMap, others, pathname } from '../edit-helpers.js';
import { okJson, orgOf, orgOfKey } from './kit.js';

const UUID = '([0-9a-fA-F-]{36})';
const INTERNAL = /^\/api\/v1\/(?:api-keys|organizations)(?:\/|$)|^\/api\/v1\/models\/[^/]+\/train$/;

/** Keys and organizations: who may call what, and what another organization's key is told. */
export const AUTH: Regression[] = [
  {
    id: 'I-AUTH-INTERNAL-NO-KEY-403',
    area: 'auth',
    description:
      'The guard of the operations outside the public surface (key creation, organizations, training) was mounted ahead of the auth middleware: a request there with no key, or an unknown one, is answered 403 "not part of the public API" instead of 401',
    violates: '"A missing or invalid key yields 401."',
    statedIn: 'interface',
    request(exchange, state) {
      if (!INTERNAL.test(pathname(exchange)) || exchange.method === 'OPTIONS') return;
      if (orgOf(exchange, state)) return;
      return jsonAnswer(403, { detail: 'This endpoint is not part of the public API.' });
    },
  },
  {
    id: 'I-AUTH-PREDICTION-OTHER-ORG-403',
    area: 'auth',
    description:
      'GET /predict/{id} loads the prediction by id and then compares its organization, answering another organization\'s prediction 403 "Not allowed to access this prediction": any key learns which prediction ids exist',
    violates: '"A resource of another organization is answered as not found (404)."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'GET', new RegExp(`^/api/v1/predict/${UUID}$`)) || answer.status !== 404) return;
      for (const org of others(exchange, state)) {
        if ((await asOwner(exchange, state, org)).status !== 200) continue;
        answer.status = 403;
        answer.body = Buffer.from(JSON.stringify({ detail: 'Not allowed to access this prediction' }));
        answer.headers['content-type'] = 'application/json';
        return;
      }
    },
  },
  {
    id: 'I-AUTH-EXPORT-SECOND-KEY-404',
    area: 'auth',
    description:
      'Exports look the segmentation up with `created_by_key` (the key that ran the prediction) instead of its organization: a second key of the same organization (a rotated key, another service) gets 404 "Segmentation not found" on every export of a run the first key started',
    violates:
      '"A key is scoped to the organization that owns it; every resource read or created is confined to that organization."',
    statedIn: 'interface',
    request(exchange, state) {
      const found = match(exchange, 'GET', new RegExp(`^/api/v1/export/${UUID}/[^/]+$`));
      if (!found) return;
      const owner = memoMap<string, string>(state, 'segmentation-key').get(found[1].toLowerCase());
      const key = bearer(exchange);
      if (!owner || owner === key) return;
      if (orgOfKey(state, owner)?.id !== orgOf(exchange, state)?.id) return;
      return jsonAnswer(404, { detail: 'Segmentation not found' });
    },
    response(exchange, answer, state) {
      const key = bearer(exchange);
      if (!key) return;
      const predictions = memoMap<string, string>(state, 'prediction-key');
      if (match(exchange, 'POST', /^\/api\/v1\/predict$/)) {
        const ack = okJson(answer);
        if (ack?.status === 'submitted' && typeof ack.prediction_id === 'string')
          predictions.set(ack.prediction_id, key);
        return;
      }
      const read = match(exchange, 'GET', new RegExp(`^/api/v1/predict/${UUID}$`));
      const body = read ? okJson(answer) : null;
      if (!read || typeof body?.segmentation_id !== 'string') return;
      const runner = predictions.get(read[1].toLowerCase());
      if (runner) memoMap<string, string>(state, 'segmentation-key').set(body.segmentation_id, runner);
    },
  },
];
