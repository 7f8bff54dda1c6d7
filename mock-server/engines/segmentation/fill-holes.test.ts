import { describe, expect, it } from 'vitest';
import { fillHoles } from './fill-holes.js';
import { maskFromPicture, prng, randomMask } from '../../../test-support/segmentation/test-helpers.js';

/** Reference: flood the background 4-connected from the border; what stays unreached is filled. */
function referenceFill(mask: Uint8Array, width: number, height: number): Uint8Array {
  const reached = new Uint8Array(mask.length);
  const stack: number[] = [];
  const visit = (x: number, y: number): void => {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    const i = y * width + x;
    if (mask[i] !== 0 || reached[i]) return;
    reached[i] = 1;
    stack.push(i);
  };
  for (let x = 0; x < width; x++) {
    visit(x, 0);
    visit(x, height - 1);
  }
  for (let y = 0; y < height; y++) {
    visit(0, y);
    visit(width - 1, y);
  }
  while (stack.length) {
    const i = stack.pop()!;
    const x = i % width;
    const y = (i - x) / width;
    visit(x - 1, y);
    visit(x + 1, y);
    visit(x, y - 1);
    visit(x, y + 1);
  }
  return reached.map((r) => 1 - r);
}

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

  it('agrees with a flood fill from the border on random masks, any nonzero value, any offset', () => {
    const rand = prng(23);
    for (let k = 0; k < 60; k++) {
      const w = 1 + Math.floor(rand() * 45);
      const h = 1 + Math.floor(rand() * 45);
      const mask = randomMask(rand, w, h, 0.3 + rand() * 0.5, 2);
      // Foreground values other than 1, and a view that does not start on a 4-byte boundary.
      for (let i = 0; i < mask.length; i++)
        if (mask[i] && rand() < 0.3) mask[i] = 1 + Math.floor(rand() * 255);
      const offset = k % 4;
      const view = new Uint8Array(mask.length + offset).subarray(offset);
      view.set(mask);
      expect([...fillHoles(view, w, h)], `case ${k}, ${w} x ${h}`).toEqual([...referenceFill(mask, w, h)]);
    }
  });
});
