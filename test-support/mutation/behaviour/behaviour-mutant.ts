import type { Exchange, SabotageCase } from '../../sabotage-catalogue.js';
import type { Mutant } from '../mutant.js';
import { counted } from '../semantic-mutants.js';

/**
 * A behaviour-level mutant: a broken build that gets one rule of the interface wrong (inverted,
 * skipped, one step late, on the wrong organization or object, an effect undone or done twice, a
 * derived value off by one or stale), made by a stateful edit in the sabotage proxy. It names the
 * interface sentences it breaks (contract-tests/trace/sentences.ts ids), which the trace table
 * reads, and the answers that trigger it: it runs every check file that receives one of them
 * (narrowed to the checks whose client did), as a regression in that code path would be met.
 */
/** Reports an effect of the mutant that is not an edit of the request or the answer. */
export type Effect = (exchange: Exchange, what: string) => void;

export interface BehaviourSpec {
  /** The kind of rule (its module): `prediction-reuse`, `shares`... */
  rule: string;
  /** The way the rule is broken: `skipped`, `counted-twice`... */
  edit: string;
  summary: string;
  sentences: readonly string[];
  /** `operation status` pairs whose answers trigger the edit. */
  triggers: ReadonlyArray<readonly [string, number]>;
  /**
   * A fresh case for one run: the closure is the proxy's memory of what it saw. An edit that acts
   * past the answer (a usage counter, a second request to the mock) tells `effect`, so a run where
   * it acted and every check passed counts as a survivor, not as a run that changed nothing.
   */
  make(effect: Effect): Pick<SabotageCase, 'request' | 'response'>;
}

export function behaviourMutant(spec: BehaviourSpec): Mutant {
  return {
    id: `behaviour:${spec.rule}:${spec.edit}`,
    operation: `behaviour:${spec.rule}`,
    summary: spec.summary,
    sentences: spec.sentences,
    reachesAny: spec.triggers.map(([operation, status]) => ({ operation, status })),
    build: (log) => {
      const effect: Effect = (exchange, what) => {
        log.changed++;
        log.example ??= `${exchange.method} ${exchange.path.split('?')[0]}: ${what}`;
      };
      return counted({ breaks: [], files: [], ...spec.make(effect) }, log);
    },
  };
}
