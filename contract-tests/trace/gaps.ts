import { CLAUSES, CLAUSE_SENTENCES } from '../clauses.js';
import type { MutationRecord } from './mutation-record.js';
import { interfaceSentences, type Sentence } from './sentences.js';
import { untestable } from './untestable.js';

/**
 * Where the trace from the interface to the suite breaks: a testable sentence no clause checks,
 * and a clause no mutant of the last complete mutation run has broken (so nothing shows its checks
 * can fail). The conformance report and `npm run mutate` both list them.
 */
export interface TraceGaps {
  sentencesWithoutClause: Sentence[];
  /** Clause ids; empty with no mutation record. */
  clausesNeverBroken: string[];
  /** The record the second list comes from (date and commit), if any. */
  record?: Pick<MutationRecord, 'date' | 'commit'>;
  /** Whether any mutation run's kills were known (this run's or a record's). */
  measured: boolean;
}

/** The clauses that name each sentence. */
export function clausesBySentence(): Map<string, string[]> {
  const by = new Map<string, string[]>();
  for (const [clause, sentences] of Object.entries(CLAUSE_SENTENCES))
    for (const s of sentences) by.set(s, [...(by.get(s) ?? []), clause]);
  return by;
}

export function traceGaps(killsByClause?: Record<string, number>, record?: MutationRecord): TraceGaps {
  const by = clausesBySentence();
  const kills = killsByClause ?? record?.killsByClause;
  return {
    sentencesWithoutClause: interfaceSentences().filter((s) => !untestable(s) && !by.has(s.id)),
    clausesNeverBroken: kills ? CLAUSES.map((c) => c.id).filter((id) => !kills[id]) : [],
    record: record && { date: record.date, commit: record.commit },
    measured: kills !== undefined,
  };
}

/** The gaps as Markdown lines (a section of a report). */
export function gapLines(gaps: TraceGaps): string[] {
  const lines = ['## Interface trace gaps', ''];
  lines.push(
    gaps.sentencesWithoutClause.length
      ? `Testable sentences of the interface no clause checks (${gaps.sentencesWithoutClause.length}):`
      : 'Every testable sentence of the interface is checked by a clause.',
    '',
    ...gaps.sentencesWithoutClause.map((s) => `- \`${s.id}\` (${s.section}): ${s.text}`),
  );
  if (gaps.sentencesWithoutClause.length) lines.push('');
  const since = gaps.record ? ` (mutation run of ${gaps.record.date} on ${gaps.record.commit})` : '';
  if (!gaps.measured) lines.push('No mutation run recorded: which clauses a mutant broke is unknown.');
  else
    lines.push(
      gaps.clausesNeverBroken.length
        ? `Clauses no mutant has broken${since} (${gaps.clausesNeverBroken.length}): ${gaps.clausesNeverBroken.join(', ')}.`
        : `Every clause was broken by a mutant${since}.`,
    );
  lines.push('', 'The whole table: docs/interface-trace.md.', '');
  return lines;
}
