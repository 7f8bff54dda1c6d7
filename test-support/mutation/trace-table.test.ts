import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLAUSES, CLAUSE_SENTENCES } from '../../contract-tests/clauses.js';
import { readRecord } from '../../contract-tests/trace/mutation-record.js';
import { interfaceSentences, sentencesOf } from '../../contract-tests/trace/sentences.js';
import { UNTESTABLE } from '../../contract-tests/trace/untestable.js';
import { allMutants } from './mutants.js';
import { renderTraceTable, TRACE_TABLE } from './trace-table.js';

describe('the interface trace', () => {
  const sentences = interfaceSentences();
  const ids = new Set(sentences.map((s) => s.id));

  it('cuts the interface into sentences with unique ids that survive edits elsewhere', () => {
    expect(ids.size).toBe(sentences.length);
    expect(sentences.length).toBeGreaterThan(150);
    const text = readFileSync('openapi/interface/api-interface.md', 'utf8');
    const edited = sentencesOf(text.replace('## Versioning', '## Versioning\n\nA new sentence here.'));
    const kept = edited.filter((s) => ids.has(s.id));
    expect(kept.length).toBe(sentences.length);
  });

  it('names only sentences that exist, from clauses, mutants and the not-testable list', () => {
    const named = [
      ...Object.values(CLAUSE_SENTENCES).flat(),
      ...allMutants().flatMap((m) => m.sentences ?? []),
      ...UNTESTABLE.flatMap((u) => (u.sentences instanceof RegExp ? [] : u.sentences)),
    ];
    expect(named.filter((id) => !ids.has(id))).toEqual([]);
    expect(Object.keys(CLAUSE_SENTENCES).filter((c) => !CLAUSES.some((k) => k.id === c))).toEqual([]);
  });

  it('has every behaviour mutant name the sentences it breaks', () => {
    const behaviour = allMutants().filter((m) => m.id.startsWith('behaviour:'));
    expect(behaviour.length).toBeGreaterThanOrEqual(30);
    expect(behaviour.filter((m) => !m.sentences?.length).map((m) => m.id)).toEqual([]);
  });

  it(`is what ${TRACE_TABLE} holds (run \`npm run trace\` when this fails)`, () => {
    expect(readFileSync(TRACE_TABLE, 'utf8')).toBe(renderTraceTable(allMutants(), readRecord()));
  });
});
