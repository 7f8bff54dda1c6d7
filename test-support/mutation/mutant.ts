import type { Answer, Exchange, SabotageCase } from '../sabotage-catalogue.js';

/** What a mutant did to the answers of one run: how many it changed, and the first of them. */
export interface MutantLog {
  changed: number;
  /** The first answer it changed: request, status, and the body before and after (shortened). */
  example?: string;
}

/** Edits one matching answer in place; answers whether it changed anything. */
export type AnswerEdit = (
  answer: Answer,
  exchange: Exchange,
  memory: Map<string, unknown>,
) => boolean | Promise<boolean>;

/**
 * One mutant: a broken build of the target, as a case of the sabotage proxy. A generated one edits
 * every answer of one operation and status (`reaches`), and runs the check files that receive such
 * an answer from a healthy target; a semantic one names its own check files, as a sabotage case.
 */
export interface Mutant {
  /** Stable across runs: `getImage.200.body.upload_status:enum-neighbour`, `sabotage:wrong-status`. */
  id: string;
  /** The operation whose answers it edits, or `semantic`. */
  operation: string;
  summary: string;
  reaches?: { operation: string; status: number };
  /** A behaviour mutant's triggers: it runs the check files that receive any of these answers. */
  reachesAny?: ReadonlyArray<{ operation: string; status: number }>;
  /** The interface sentences (contract-tests/trace/sentences.ts ids) it breaks, where it names them. */
  sentences?: readonly string[];
  files?: readonly string[];
  only?: string;
  env?: Record<string, string>;
  /** A fresh case for one run (a stale-read mutant remembers earlier answers), reporting into `log`. */
  build(log: MutantLog): SabotageCase;
}
