import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What the last complete `npm run mutate` measured, kept in the repository so the trace table and
 * the conformance report can say which clauses no mutant has broken without running it: the kills
 * per clause, and the fate of each mutant that names the interface sentences it breaks.
 */
export interface MutationRecord {
  date: string;
  commit: string;
  mutants: number;
  /** `97.3 %`, as the report headed it. */
  score: string;
  killsByClause: Record<string, number>;
  /** Mutants naming sentences: their fate and the sentences. */
  named: Record<string, { fate: string; sentences: readonly string[] }>;
}

export const RECORD_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'mutation-record.json');

export function readRecord(file = RECORD_FILE): MutationRecord | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as MutationRecord) : undefined;
}

export function writeRecord(record: MutationRecord, file = RECORD_FILE): void {
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
}
