import { describe, expect, it } from 'vitest';
import { fillHoles } from './fill-holes.js';
import { maskFromPicture } from '../../../test-support/segmentation/test-helpers.js';

const show = (mask: Uint8Array, width: number): string[] => {
  const rows: string[] = [];
  for (let i = 0; i < mask.length; i += width)
    rows.push([...mask.subarray(i, i + width)].map((v) => (v ? '#' : '.')).join(''));
  return rows;
};

describe('fillHoles', () => {
  it('fills a hole and keeps a concavity open to the border', () => {
    const { mask, width, height } = maskFromPicture(`
      .......
      .#####.
      .#..###
      .#####.
      ...#...
      ..#.#..
      ...#...`);
    expect(show(fillHoles(mask, width, height), width)).toEqual([
      '.......',
      '.#####.',
      '.######',
      '.#####.',
      '...#...',
      '..###..',
      '...#...',
    ]);
  });

  it('treats background as 4-connected: a diagonal gap does not let the border in', () => {
    const { mask, width, height } = maskFromPicture(`
      ##.
      #.#
      .##`);
    // The centre pixel touches the outside only at corners, so it is a hole.
    expect([...fillHoles(mask, width, height)]).toEqual([1, 1, 0, 1, 1, 1, 0, 1, 1]);
  });

  it('leaves background on the border untouched', () => {
    const { mask, width, height } = maskFromPicture(`
      #.#
      #.#
      ###`);
    expect([...fillHoles(mask, width, height)]).toEqual([...mask]);
  });
});
