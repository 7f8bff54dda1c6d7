import { describe, expect, it } from 'vitest';
import { ifNoneMatchHolds } from './if-none-match.js';

describe('If-None-Match', () => {
  const etag = '"abc"';
  it('holds for the same tag, weakly compared, in a list, or for *', () => {
    for (const header of ['"abc"', 'W/"abc"', '"x", "abc"', ' "x" ,W/"abc" ', '*', '"x", , "abc",'])
      expect(ifNoneMatchHolds(header, etag), header).toBe(true);
  });
  it('reads a comma inside a quoted tag as part of the tag', () => {
    expect(ifNoneMatchHolds('"x", "a,b"', '"a,b"')).toBe(true);
    expect(ifNoneMatchHolds('"a,b"', '"a"')).toBe(false);
    expect(ifNoneMatchHolds('"a,b"', '"b"')).toBe(false);
  });
  it('does not hold without the header, for another tag, or for a header that is no list of entity-tags', () => {
    for (const header of [
      undefined,
      '',
      '"abd"',
      'abc',
      '"x", "y"',
      'w/"abc"',
      'xyz"abc"',
      '"x""abc"',
      '"abc" junk',
    ])
      expect(ifNoneMatchHolds(header, etag), String(header)).toBe(false);
  });
});
