import type { Exchange } from '../../sabotage-catalogue.js';
import { behaviourMutant } from './behaviour-mutant.js';
import { bodyOf, isCreation } from './proxy-effects.js';

/**
 * The document's maximum of an upload's size, 4 GiB (assumed, its reading of the interface's
 * "4 GB"): a file of exactly that size is taken. The mutant holds the bound with `<` where it is
 * `<=`, as the proxy's one byte more makes the healthy mock refuse the opening.
 */
const MAX_SIZE = 4 * 1024 ** 3;

export const uploadSizeMutants = () => [
  behaviourMutant({
    rule: 'upload-size',
    edit: 'maximum-refused',
    summary:
      'The size bound is held with < instead of <=: an upload or image record of exactly 4 GiB is refused 422.',
    sentences: ['limits.f74283'],
    triggers: [
      ['uploadImage', 200],
      ['createImage', 200],
    ],
    make: () => ({
      request: (exchange: Exchange) => {
        const body = isCreation(exchange) ? bodyOf<{ size?: unknown }>(exchange.body) : undefined;
        if (body?.size === MAX_SIZE)
          exchange.body = Buffer.from(JSON.stringify({ ...body, size: MAX_SIZE + 1 }));
      },
    }),
  }),
];
