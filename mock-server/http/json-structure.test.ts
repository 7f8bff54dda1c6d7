import { describe, expect, it } from 'vitest';
import { findStructureProblem } from './json-structure.js';

const limits = { maxDepth: 3, maxKeys: 4 };
const scan = (text: string) => findStructureProblem(Buffer.from(text), limits);

describe('findStructureProblem', () => {
  it('accepts nesting up to the limit and refuses one level more, naming the byte', () => {
    expect(scan('{"a":[[1]]}')).toBeUndefined();
    expect(scan('{"a":[[[1]]]}')).toEqual({ kind: 'too_deep', limit: 3, offset: 7 });
    expect(scan('[[[[' + ']]]]')).toMatchObject({ kind: 'too_deep' });
  });

  it('counts depth again after closing, not the total of brackets', () => {
    expect(scan('[[[]],[[]],[[]],[[]]]')).toBeUndefined();
  });

  it('counts keys over the whole body', () => {
    expect(scan('{"a":1,"b":{"c":2,"d":3}}')).toBeUndefined();
    expect(scan('{"a":1,"b":{"c":2,"d":3},"e":4}')).toEqual({ kind: 'too_many_keys', limit: 4, offset: 28 });
  });

  it('ignores brackets, colons and escaped quotes inside strings', () => {
    expect(scan('{"a":"[[[[{{{{:::::\\"[[[[::::"}')).toBeUndefined();
    expect(scan('["\\\\", [[["x"]]]]')).toMatchObject({ kind: 'too_deep' });
  });

  it('scans a million levels without recursing', () => {
    const deep = Buffer.from('['.repeat(1_000_000) + ']'.repeat(1_000_000));
    expect(findStructureProblem(deep, { maxDepth: 64, maxKeys: 10 })).toEqual({
      kind: 'too_deep',
      limit: 64,
      offset: 64,
    });
  });
});
