import { describe, expect, it } from 'vitest';
import { ringBounds, roiManagerLabel, uniqueRoiNames } from './roi-names.js';

const box = (x: number, y: number, width: number, height: number) => ({ x, y, width, height });
const square = (x: number, y: number, s: number): [number, number][] => [
  [x, y],
  [x + s, y],
  [x + s, y + s],
  [x, y + s],
];

describe('RoiManager names', () => {
  it('yyyy-xxxx from the integer centre of the bounds (x + floor(w / 2))', () => {
    expect(roiManagerLabel(box(2, 1, 3, 2), 100)).toBe('0002-0003');
    expect(roiManagerLabel(box(0, 0, 1, 1), 100)).toBe('0000-0000');
    expect(roiManagerLabel(box(10, 20, 5, 4), 100)).toBe('0022-0012');
  });

  it('widens both numbers to the longer one past 4 digits, and to 5 on images 10000 high', () => {
    expect(roiManagerLabel(box(12340, 5, 2, 2), 100)).toBe('00006-12341');
    expect(roiManagerLabel(box(5, 99998, 2, 4), 100000)).toBe('100000-000006');
    expect(roiManagerLabel(box(5, 6, 2, 2), 10000)).toBe('00007-00006');
    expect(roiManagerLabel(box(5, 6, 2, 2), 9999)).toBe('0007-0006');
  });

  it('suffixes repeats -1, -2 in ROI order, the first keeps the bare name', () => {
    expect(
      uniqueRoiNames(
        [square(0, 0, 2), square(1, 1, 1), square(0, 0, 3), square(5, 5, 1), square(1, 1, 1)],
        50,
      ),
    ).toEqual(['0001-0001', '0001-0001-1', '0001-0001-2', '0005-0005', '0001-0001-3']);
  });

  it('bounds of a ring are its min/max corners', () => {
    expect(ringBounds(square(3, 4, 2))).toEqual(box(3, 4, 2, 2));
    expect(() => ringBounds([])).toThrow(/empty/);
  });
});
