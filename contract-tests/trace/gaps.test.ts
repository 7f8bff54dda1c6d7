import { describe, expect, it } from 'vitest';
import { CLAUSES } from '../clauses.js';
import { buildReport } from '../report/conformance-model.js';
import { renderMarkdown } from '../report/render-markdown.js';
import { sharedContract } from '../harness/openapi-contract.js';
import { gapLines, traceGaps } from './gaps.js';
import { interfaceSentences } from './sentences.js';

describe('the interface trace gaps', () => {
  it('lists a clause no mutant broke, and none when every clause killed one', () => {
    const all = Object.fromEntries(CLAUSES.map((c) => [c.id, 1]));
    expect(traceGaps(all).clausesNeverBroken).toEqual([]);
    expect(traceGaps({ ...all, 'SHR-09': 0 }).clausesNeverBroken).toEqual(['SHR-09']);
  });

  it('lists a testable sentence without a clause, and none now that the 4 GB bound is checked by UP-21', () => {
    const gaps = traceGaps({});
    expect(gaps.sentencesWithoutClause).toEqual([]);
    expect(gapLines(gaps).join('\n')).toMatch(
      /Every testable sentence of the interface is checked by a clause/,
    );
    const bound = interfaceSentences().find((s) => s.id === 'limits.f74283')!;
    expect(gapLines({ ...gaps, sentencesWithoutClause: [bound] }).join('\n')).toMatch(
      /no clause checks \(1\):[\s\S]*limits\.f74283.*up to 4 GB/,
    );
  });

  it('appear in the conformance report', () => {
    const report = buildReport(
      [],
      sharedContract(),
      { baseUrl: 'x', profile: 'mock', capabilities: [] },
      {
        startedAt: '',
        finishedAt: '',
      },
    );
    expect(renderMarkdown(report)).toMatch(
      /## Interface trace gaps[\s\S]*Every testable sentence of the interface is checked by a clause/,
    );
  });
});
