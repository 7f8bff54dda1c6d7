import type { Regression } from './regression.js';
import { SET_A } from './set-a/index.js';
import { SET_B } from './set-b/index.js';
import { SET_C } from './set-c/index.js';
import { SET_D } from './set-d/index.js';
import { SET_E } from './set-e/index.js';
import { SET_F } from './set-f/index.js';
import { SET_G } from './set-g/index.js';
import { SET_H } from './set-h/index.js';
import { SET_I } from './set-i/index.js';
import { SET_J } from './set-j/index.js';

/**
 * The regression sets the runner knows, each with where its measures are kept. Every set has a
 * page of its own, so a run of one set never rewrites the figures of another.
 */
export interface RegressionSet {
  regressions: Regression[];
  /** The whole set's last full run, relative to the repository root. */
  resultsFile: string;
  /** Later runs of part of the set (`--record`), relative to the repository root. */
  measuresFile: string;
  /** The generated page, relative to the repository root. */
  page: string;
  /** Two ids the page shows in its `--only` example. */
  exampleIds: [string, string];
}

export const REGRESSION_SETS: Record<string, RegressionSet> = {
  a: {
    regressions: SET_A,
    resultsFile: 'test-support/regression-sets/set-a-results.json',
    measuresFile: 'test-support/regression-sets/set-a-measures.json',
    page: 'docs/regression-sets.md',
    exampleIds: ['A-SH-ROLE-EDITOR', 'A-CSV-LATIN1'],
  },
  b: {
    regressions: SET_B,
    resultsFile: 'test-support/regression-sets/set-b-results.json',
    measuresFile: 'test-support/regression-sets/set-b-measures.json',
    page: 'docs/regression-sets-b.md',
    exampleIds: ['B-SH-NEW-SHARE-EACH-POST', 'B-CSV-COLUMNS-FIRST-ONLY'],
  },
  c: {
    regressions: SET_C,
    resultsFile: 'test-support/regression-sets/set-c-results.json',
    measuresFile: 'test-support/regression-sets/set-c-measures.json',
    page: 'docs/regression-sets-c.md',
    exampleIds: ['C-SH-NEW-SHARE-OLD-TOKEN', 'C-CSV-DISTINCT-ROWS'],
  },
  d: {
    regressions: SET_D,
    resultsFile: 'test-support/regression-sets/set-d-results.json',
    measuresFile: 'test-support/regression-sets/set-d-measures.json',
    page: 'docs/regression-sets-d.md',
    exampleIds: ['D-SH-RESHARE-KEEPS-REVOKED-AT', 'D-CSV-CENTROID-SWAPPED'],
  },
  e: {
    regressions: SET_E,
    resultsFile: 'test-support/regression-sets/set-e-results.json',
    measuresFile: 'test-support/regression-sets/set-e-measures.json',
    page: 'docs/regression-sets-e.md',
    exampleIds: ['E-SH-REPOST-REVIVES-REVOKED', 'E-CSV-BATCH-DUPLICATE-ROW'],
  },
  f: {
    regressions: SET_F,
    resultsFile: 'test-support/regression-sets/set-f-results.json',
    measuresFile: 'test-support/regression-sets/set-f-measures.json',
    page: 'docs/regression-sets-f.md',
    exampleIds: ['F-SH-RESHARE-DROPS-OLD-SHARE', 'F-ZIP-BOUNDS-INCLUSIVE'],
  },
  g: {
    regressions: SET_G,
    resultsFile: 'test-support/regression-sets/set-g-results.json',
    measuresFile: 'test-support/regression-sets/set-g-measures.json',
    page: 'docs/regression-sets-g.md',
    exampleIds: ['G-SH-RESHARE-INHERITS-VIEWS', 'G-ZIP-ROI-CLOSING-VERTEX'],
  },
  h: {
    regressions: SET_H,
    resultsFile: 'test-support/regression-sets/set-h-results.json',
    measuresFile: 'test-support/regression-sets/set-h-measures.json',
    page: 'docs/regression-sets-h.md',
    exampleIds: ['H-SH-RESHARE-409', 'H-CSV-COLUMNS-VALUES-CANONICAL'],
  },
  i: {
    regressions: SET_I,
    resultsFile: 'test-support/regression-sets/set-i-results.json',
    measuresFile: 'test-support/regression-sets/set-i-measures.json',
    page: 'docs/regression-sets-i.md',
    exampleIds: ['I-SH-VIEWS-DEDUPED-PER-VISITOR', 'I-CSV-MODEL-NAME-IS-ID'],
  },
  j: {
    regressions: SET_J,
    resultsFile: 'test-support/regression-sets/set-j-results.json',
    measuresFile: 'test-support/regression-sets/set-j-measures.json',
    page: 'docs/regression-sets-j.md',
    exampleIds: ['J-SH-VIEW-COUNTED-ON-OLD-SHARE', 'J-CSV-EMPTY-CELL-BLANK-LINE'],
  },
};
