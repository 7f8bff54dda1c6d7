import { describe, expect, it } from 'vitest';
import { candidatesFor, decodeSegment, escapeRegExp, groupBySlashes, slashCount } from './path-segment.js';

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

  it('counts the slashes the routers bucket templates and paths by', () => {
    expect(slashCount('')).toBe(0);
    expect(slashCount('/')).toBe(1);
    expect(slashCount('/api/v1/models')).toBe(3);
    expect(slashCount('/api/v1/models/')).toBe(4);
    expect(slashCount('/api/v1/predict/{prediction_id}')).toBe(slashCount('/api/v1/predict/abc'));
    expect(slashCount('//a//')).toBe(4);
  });

  it('groups routes by their slashes, in the order given, and offers a path only its own group', () => {
    const routes = ['/a/{id}', '/a', '/b/{id}', '/a/b/c'];
    const groups = groupBySlashes(routes, (route) => route);
    expect(candidatesFor(groups, '/x/1')).toEqual(['/a/{id}', '/b/{id}']);
    expect(candidatesFor(groups, '/a')).toEqual(['/a']);
    expect(candidatesFor(groups, '/a/b/c/d')).toEqual([]);
  });
});
