/**
 * Segmentation quality on the deterministic synthetic fixtures (fixtures/generator/synthetic.ts):
 * precision and recall at IoU > 0.5 against the ground-truth labels, printed as a table.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { renderPreset, type FixturePresetName } from '../../../fixtures/generator/synthetic.js';
import { segmentByThresholdDetailed, type ThresholdParams } from './threshold-segmenter.js';
import { expectValidResult } from '../../../test-support/segmentation/expect-valid-result.js';

interface Score {
  fixture: string;
  split: boolean;
  truth: number;
  found: number;
  matched: number;
  precision: number;
  recall: number;
  countError: number;
}

/** Matches at IoU > 0.5 (such matches are necessarily one-to-one). */
function score(pred: Int32Array, predCount: number, truth: Int32Array, truthCount: number) {
  const predArea = new Float64Array(predCount + 1);
  const truthArea = new Float64Array(truthCount + 1);
  const overlap = new Map<number, number>();
  for (let i = 0; i < pred.length; i++) {
    predArea[pred[i]]++;
    truthArea[truth[i]]++;
    if (pred[i] > 0 && truth[i] > 0) {
      const key = pred[i] * (truthCount + 1) + truth[i];
      overlap.set(key, (overlap.get(key) ?? 0) + 1);
    }
  }
  let matched = 0;
  for (const [key, inter] of overlap) {
    const p = Math.floor(key / (truthCount + 1));
    const t = key % (truthCount + 1);
    if (inter / (predArea[p] + truthArea[t] - inter) > 0.5) matched++;
  }
  return {
    matched,
    precision: predCount ? matched / predCount : 1,
    recall: truthCount ? matched / truthCount : 1,
  };
}

// Each preset is segmented twice (split off and on) from one rendering: the 2048 x 2048 one
// takes a second to draw.
const rendered = new Map<FixturePresetName, ReturnType<typeof renderPreset>>();

function run(name: FixturePresetName, splitTouching: boolean): Score {
  const image = rendered.get(name) ?? rendered.set(name, renderPreset(name)).get(name)!;
  const params: ThresholdParams = {
    sigma: 1.5,
    polarity: image.spec.polarity ?? 'bright',
    minAreaPx: 20,
    splitTouching,
    excludeBorderObjects: false,
  };
  const { result, labels } = segmentByThresholdDetailed(image.plane, params);
  expectValidResult(result, labels);
  const s = score(labels.labels, labels.count, image.truth.labels, image.truth.count);
  return {
    fixture: name,
    split: splitTouching,
    truth: image.truth.count,
    found: labels.count,
    ...s,
    countError: Math.abs(labels.count - image.truth.count) / image.truth.count,
  };
}

describe('threshold segmenter on synthetic fixtures', () => {
  const scores: Score[] = [];

  it.each(['easy-8bit-256', 'easy-16bit-512', 'brightfield-8bit-512', 'large-16bit-2048'] as const)(
    '%s (non-touching): cell count within 2 percent, precision and recall >= 0.95',
    (name) => {
      for (const split of [false, true]) {
        const s = run(name, split);
        scores.push(s);
        expect(s.countError).toBeLessThan(0.02);
        expect(s.precision).toBeGreaterThanOrEqual(0.95);
        expect(s.recall).toBeGreaterThanOrEqual(0.95);
      }
    },
  );

  it('touching-16bit-512: splitting separates most touching cells', () => {
    const merged = run('touching-16bit-512', false);
    const split = run('touching-16bit-512', true);
    scores.push(merged, split);
    expect(split.recall).toBeGreaterThanOrEqual(0.8);
    expect(split.precision).toBeGreaterThanOrEqual(0.9);
    expect(split.recall).toBeGreaterThan(merged.recall + 0.3);
    expect(split.countError).toBeLessThan(0.15);
  });

  // the worker runs other files after this one: the 2048 x 2048 rendering is not kept for them
  afterAll(() => rendered.clear());

  it('prints the table', () => {
    const lines = scores.map(
      (s) =>
        `${s.fixture.padEnd(22)} ${String(s.split).padEnd(6)} ${String(s.truth).padStart(5)} ${String(s.found).padStart(5)} ` +
        `${String(s.matched).padStart(7)} ${s.precision.toFixed(3).padStart(9)} ${s.recall.toFixed(3).padStart(6)}`,
    );
    console.log(['fixture                split  truth found matched precision recall', ...lines].join('\n'));
    expect(scores.length).toBe(10);
  });
});
