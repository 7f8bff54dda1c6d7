import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCommittedSections } from './committed-table.js';
import { repoRoot } from './processes.js';
import { FIGURES_END, FIGURES_START, renderReadmeFigures } from './readme-figures.js';

const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');

describe("the README's measured figures", () => {
  it('are the ones docs/benchmarks.md holds from the last run, as the bench writes them', () => {
    const readme = read('README.md');
    const block = readme.slice(
      readme.indexOf(FIGURES_START) + FIGURES_START.length,
      readme.indexOf(FIGURES_END),
    );
    const expected = renderReadmeFigures(parseCommittedSections(read('docs/benchmarks.md')));
    expect(block.trim(), 'run `npm run bench -- --render`, or a full `npm run bench`').toBe(expected);
  });

  it('say of a section never measured that it was not, instead of a stale figure', () => {
    expect(renderReadmeFigures({})).toMatch(
      /start \(not measured in the last run\).*segmentation \(not measured/,
    );
  });
});
