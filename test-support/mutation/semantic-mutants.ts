import { SABOTAGES, type Answer, type Exchange, type SabotageCase } from '../sabotage-catalogue.js';
import type { Mutant, MutantLog } from './mutant.js';

/**
 * Mutants no schema can generate (cascades, caps, share lifecycle, identical predictions...): the
 * sabotage catalogue's hand-written broken builds, each run against its own check files. A case
 * counts as applied when it changed a request or an answer that passed through it.
 */

const fingerprint = (x: Exchange | Answer): string =>
  JSON.stringify([
    'status' in x ? x.status : x.path,
    x.headers instanceof Headers ? [...x.headers.entries()] : x.headers,
    x.body.toString('base64'),
  ]);

/** The same case, with every change it makes counted into `log`. */
export function counted(sabotage: SabotageCase, log: MutantLog): SabotageCase {
  const note = (exchange: Exchange, what: string) => {
    log.changed++;
    log.example ??= `${exchange.method} ${exchange.path.split('?')[0]}: ${what} edited`;
  };
  return {
    ...sabotage,
    request:
      sabotage.request &&
      (async (exchange, state) => {
        const before = fingerprint(exchange);
        await sabotage.request!(exchange, state);
        if (fingerprint(exchange) !== before) note(exchange, 'the request');
      }),
    response:
      sabotage.response &&
      (async (exchange, answer, state) => {
        const before = fingerprint(answer);
        await sabotage.response!(exchange, answer, state);
        if (fingerprint(answer) !== before) note(exchange, 'the answer');
      }),
  };
}

export function semanticMutants(): Mutant[] {
  return Object.entries(SABOTAGES).map(([name, raw]): Mutant => {
    const sabotage: SabotageCase = raw;
    return {
      id: `sabotage:${name}`,
      operation: 'semantic',
      summary: `${name} (breaks ${sabotage.breaks.join(', ')})`,
      files: sabotage.files,
      only: sabotage.only,
      env: sabotage.env,
      build: (log) => counted(sabotage, log),
    };
  });
}
