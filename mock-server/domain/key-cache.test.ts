import { describe, expect, it } from 'vitest';
import { KeyCache } from './key-cache.js';
import type { Organization } from './organization-record.js';

const org = (id: string): Organization => ({
  id,
  name: id,
  plan: { name: 'free', storageCapImages: 1, monthlyAnalysisCap: 1 },
  apiKeys: [],
});

describe('the API-key cache', () => {
  it('answers a key it has seen from memory, as a fresh copy', async () => {
    const cache = new KeyCache();
    let loads = 0;
    const load = () => Promise.resolve((loads++, org('a')));
    const first = await cache.lookup('h', load);
    first!.plan.name = 'changed by a caller';
    const second = await cache.lookup('h', load);
    expect(loads).toBe(1);
    expect(second!.plan.name).toBe('free');
  });

  it('looks a key up again after an invalidation, and keeps no key that does not exist', async () => {
    const cache = new KeyCache();
    let answer: Organization | undefined = org('a');
    await cache.lookup('h', () => Promise.resolve(answer));
    cache.invalidate();
    answer = undefined;
    expect(await cache.lookup('h', () => Promise.resolve(answer))).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('does not keep an answer loaded before an invalidation that came while it was loading', async () => {
    const cache = new KeyCache();
    let release!: () => void;
    const slow = cache.lookup('h', () => new Promise((resolve) => (release = () => resolve(org('old')))));
    cache.invalidate();
    release();
    await slow;
    expect(await cache.lookup('h', () => Promise.resolve(undefined))).toBeUndefined();
  });

  it('forgets every key when the version it is told differs from the last one', async () => {
    const cache = new KeyCache();
    cache.observe('v1');
    await cache.lookup('a', () => Promise.resolve(org('a')));
    cache.observe('v1');
    expect(cache.size).toBe(1);
    cache.observe('v2');
    expect(cache.size).toBe(0);
  });

  it('is bounded in entries and in age', async () => {
    let now = 0;
    const cache = new KeyCache({ maxEntries: 2, maxAgeMs: 100 }, () => now);
    for (const hash of ['a', 'b', 'c']) await cache.lookup(hash, () => Promise.resolve(org(hash)));
    expect(cache.size).toBe(2);
    expect(await cache.lookup('a', () => Promise.resolve(undefined))).toBeUndefined();
    now = 100;
    expect(await cache.lookup('c', () => Promise.resolve(undefined))).toBeUndefined();
  });
});
