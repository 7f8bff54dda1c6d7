import { randomBytes, randomUUID } from 'node:crypto';
import type { Regression } from '../regression.js';
import { caller, jsonAnswer, pathname } from '../edit-helpers.js';
import { detailOf, isExport } from './common.js';

export const AUTH: Regression[] = [
  {
    id: 'D-AUTH-NO-WWW-AUTHENTICATE',
    area: 'auth',
    description:
      'A 401 is built by an exception handler that copies status and body but not the headers: `WWW-Authenticate` is lost',
    violates:
      'Unauthorized response: header `WWW-Authenticate` (openapi.yaml, components.responses.Unauthorized)',
    statedIn: 'document',
    response(_exchange, answer) {
      if (answer.status === 401) {
        delete answer.headers['www-authenticate'];
      }
    },
  },
  {
    id: 'D-AUTH-ANY-SCHEME',
    area: 'auth',
    description:
      'The key is read as `header.split(" ")[1]` and the scheme never checked: `Authorization: Basic <key>` or `Token <key>` is accepted',
    violates:
      '"Every request carries `Authorization: Bearer <API_KEY>`." / "A missing or invalid key yields 401."',
    statedIn: 'interface',
    request(exchange) {
      const header = exchange.headers.get('authorization');
      const parts = header?.trim().split(/\s+/);
      if (parts && parts.length === 2 && parts[0].toLowerCase() !== 'bearer')
        exchange.headers.set('authorization', `Bearer ${parts[1]}`);
    },
  },
  {
    id: 'D-AUTH-EMPTY-BEARER-500',
    area: 'auth',
    description:
      '`Authorization: Bearer` with no key (or only spaces after it) reaches the key hash with an empty string, which throws: 500',
    violates: '"A missing or invalid key yields 401."',
    statedIn: 'interface',
    request(exchange) {
      const header = exchange.headers.get('authorization');
      if (header !== null && /^bearer\s*$/i.test(header.trim()) && pathname(exchange).startsWith('/api/'))
        return jsonAnswer(500, { detail: 'Internal Server Error' });
    },
  },
  {
    id: 'D-AUTH-INTERNAL-ROUTE-OPEN',
    area: 'auth',
    description:
      'The guard of the operations outside the public surface checks only that the key is valid: a public key creates API keys, trains models, lists organizations',
    violates: '"A valid key used on an endpoint outside the public product surface yields 403."',
    statedIn: 'interface',
    response(exchange, answer, state) {
      if (answer.status !== 403 || !/not part of the public API/i.test(detailOf(answer))) return;
      const org = caller(exchange, state);
      const p = pathname(exchange);
      answer.status = 200;
      answer.headers['content-type'] = 'application/json';
      const body = p.endsWith('/api-keys')
        ? { id: `key_${randomBytes(8).toString('hex')}`, key: `sk_test_${randomBytes(16).toString('hex')}` }
        : p.endsWith('/train')
          ? { job_id: randomUUID(), status: 'queued' }
          : { id: org?.id ?? randomUUID(), name: org?.name ?? '' };
      answer.body = Buffer.from(JSON.stringify(body));
    },
  },
  {
    id: 'D-AUTH-EXPORT-401-AS-404',
    area: 'auth',
    description:
      'The export routes look the segmentation up with the (absent) organization before authenticating: a missing or invalid key answers 404 "Segmentation not found"',
    violates: '"A missing or invalid key yields 401."',
    statedIn: 'interface',
    response(exchange, answer) {
      if (isExport(exchange) && answer.status === 401) {
        answer.status = 404;
        delete answer.headers['www-authenticate'];
        answer.headers['content-type'] = 'application/json';
        answer.body = Buffer.from(JSON.stringify({ detail: 'Segmentation not found' }));
      }
    },
  },
];
