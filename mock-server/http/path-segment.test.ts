import { describe, expect, it } from 'vitest';
import { decodeSegment, escapeRegExp } from './path-segment.js';

describe('path segments', () => {
  it('decodes percent-encoding, and answers nothing for a broken one', () => {
    expect(decodeSegment('a%20b%2Fc')).toBe('a b/c');
    expect(decodeSegment('%E0')).toBeUndefined();
    expect(decodeSegment('%zz')).toBeUndefined();
  });

  it('escapes text so that a RegExp matches it literally', () => {
    const text = '/__mock/ui.(v1)+[x]*?^$|{}\\';
    expect(new RegExp(`^${escapeRegExp(text)}$`).test(text)).toBe(true);
    expect(new RegExp(`^${escapeRegExp('a.b')}$`).test('axb')).toBe(false);
  });
});
