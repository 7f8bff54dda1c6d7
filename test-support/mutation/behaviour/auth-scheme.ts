import { behaviourMutant } from './behaviour-mutant.js';

/**
 * The scheme never checked: a build that takes the key from whatever follows the first space (or
 * the whole header) accepts the real key under `Token`, `Basic` or no scheme at all. A key read
 * from the query where the header is missing (`api_key`, RFC 6750's `access_token`) authenticates
 * a request that carries no header.
 */

const BEARER_HEADER = 'authentication.f0a633';
const INVALID_401 = 'authentication.5d96be';

export const authSchemeMutants = () => [
  behaviourMutant({
    rule: 'auth-scheme',
    edit: 'any-scheme-taken',
    summary: 'The scheme is never checked: the real key under another scheme, or none, is taken.',
    sentences: [BEARER_HEADER, INVALID_401],
    triggers: [['listModels', 401]],
    make: () => ({
      request: (exchange) => {
        const header = exchange.headers.get('authorization');
        if (!header || /^bearer\s/i.test(header)) return;
        const token = header.trim().split(/\s+/).at(-1);
        if (token) exchange.headers.set('authorization', `Bearer ${token}`);
      },
    }),
  }),
  behaviourMutant({
    rule: 'query-key',
    edit: 'query-key-taken',
    summary:
      'A request without an Authorization header is taken with the key in its query (api_key or access_token).',
    sentences: [BEARER_HEADER, INVALID_401],
    triggers: [['listModels', 401]],
    make: () => ({
      request: (exchange) => {
        if (exchange.headers.has('authorization')) return;
        const query = new URLSearchParams(exchange.path.split('?')[1] ?? '');
        const key = query.get('api_key') ?? query.get('access_token');
        if (key) exchange.headers.set('authorization', `Bearer ${key}`);
      },
    }),
  }),
];
