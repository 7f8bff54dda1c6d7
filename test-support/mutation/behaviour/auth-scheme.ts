import { behaviourMutant } from './behaviour-mutant.js';

/**
 * The scheme never checked: a build that takes the key from whatever follows the first space (or
 * the whole header) accepts the real key under `Token`, `Basic` or no scheme at all.
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
];
