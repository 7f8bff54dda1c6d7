import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLAUSES } from './clauses.js';

const checksDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'checks');

/** Clause ids named in `clauses: [...]` of every check file. */
function coveredClauses(): Set<string> {
  const covered = new Set<string>();
  for (const file of readdirSync(checksDir).filter((f) => f.endsWith('.check.ts'))) {
    const source = readFileSync(path.join(checksDir, file), 'utf8');
    for (const list of source.matchAll(/clauses:\s*\[([^\]]*)\]/g)) {
      for (const id of list[1].matchAll(/'([A-Z]+-\d+)'/g)) covered.add(id[1]);
    }
  }
  return covered;
}

describe('the clause catalogue', () => {
  it('has a check for every clause', () => {
    const covered = coveredClauses();
    expect(CLAUSES.filter((c) => !covered.has(c.id)).map((c) => `${c.id}: ${c.summary}`)).toEqual([]);
  });

  it('has unique ids', () => {
    expect(new Set(CLAUSES.map((c) => c.id)).size).toBe(CLAUSES.length);
  });
});
