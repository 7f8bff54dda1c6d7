import { describe, expect, it } from 'vitest';
import type { Finding } from './exchange.js';
import { observeRingOrientation } from './geojson-rings.js';

/** A cell two pixels wide and one high at (1, 1), traced along pixel edges; positive shoelace sum. */
const COUNTERCLOCKWISE = [
  [1, 1],
  [3, 1],
  [3, 2],
  [1, 2],
  [1, 1],
];
const polygon = (...rings: number[][][]) => ({
  type: 'Feature',
  geometry: { type: 'Polygon', coordinates: rings },
  properties: {},
});
const judge = (features: unknown[]) => {
  const findings: Finding[] = [];
  observeRingOrientation(features, findings);
  return findings.map((f) => `${f.clause}: ${f.subject}: ${f.received}`);
};

describe("rois.geojson's rings, held to RFC 7946's right-hand rule", () => {
  it('takes exterior rings with a positive shoelace sum on x, y (clockwise on a y-down screen), and holes the other way', () => {
    const outer = [
      [0, 0],
      [4, 0],
      [4, 4],
      [0, 4],
      [0, 0],
    ];
    expect(judge([polygon(COUNTERCLOCKWISE), polygon(outer, [...COUNTERCLOCKWISE].reverse())])).toEqual([]);
  });

  it('flags an exterior ring wound the other way, and a hole wound as an exterior ring, under EXP-04 alone', () => {
    expect(judge([polygon(COUNTERCLOCKWISE), polygon([...COUNTERCLOCKWISE].reverse())])).toEqual([
      'EXP-04: exportRoisGeojson: ring orientation (1 of 2 features): wound the other way: feature 2 exterior ring',
    ]);
    const outer = [...COUNTERCLOCKWISE].map(([x, y]) => [x * 4, y * 4]);
    expect(judge([polygon(outer, COUNTERCLOCKWISE)])).toEqual([
      'EXP-04: exportRoisGeojson: ring orientation (1 of 1 features): wound the other way: feature 1 hole 1',
    ]);
  });

  it('leaves alone what it cannot read as a ring: another geometry, a ring of no area, positions not numbers', () => {
    expect(
      judge([
        { type: 'Feature', geometry: { type: 'Point', coordinates: [1, 1] } },
        polygon([
          [0, 0],
          [1, 1],
          [2, 2],
          [0, 0],
        ]),
        polygon([
          ['a', 'b'],
          [1, 2],
          [3, 4],
          ['a', 'b'],
        ] as unknown as number[][]),
        null,
      ]),
    ).toEqual([]);
  });
});
