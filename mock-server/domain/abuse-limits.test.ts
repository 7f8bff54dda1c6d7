/**
 * The rate limit's share per instance: what each instance admits of a key's requests when several
 * stand behind one address, counted in its own memory (the HTTP behaviour is http/abuse-limits.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { memoryRateWindows } from '../stores/memory/rate-windows.js';
import { RequestRateLimit } from './abuse-limits.js';
import { DomainError } from './errors.js';

const admitted = async (limit: RequestRateLimit, key: string, requests: number) => {
  let count = 0;
  for (let i = 0; i < requests; i++) {
    try {
      await limit.admit(key);
      count++;
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).message).toMatch(/allows 10 requests per second per API key/);
    }
  }
  return count;
};

describe('requests per API key per second, split across instances', () => {
  const frozen = () => 5_000; // one window throughout

  it('admits the whole limit on one instance', async () => {
    const limit = new RequestRateLimit({ rates: memoryRateWindows(frozen) }, 10);
    expect(await admitted(limit, 'key_a', 25)).toBe(10);
  });

  it('admits its share, rounded up, on each of three instances: the limit in all when spread evenly', async () => {
    const instances = [0, 1, 2].map(() => new RequestRateLimit({ rates: memoryRateWindows(frozen) }, 10, 3));
    const each = await Promise.all(instances.map((limit) => admitted(limit, 'key_a', 10)));
    expect(each).toEqual([4, 4, 4]);
    // Another key has its own count on every instance.
    expect(await admitted(instances[0], 'key_b', 10)).toBe(4);
  });

  it('admits a key again in the next window', async () => {
    let now = 5_000;
    const limit = new RequestRateLimit({ rates: memoryRateWindows(() => now) }, 10, 2);
    expect(await admitted(limit, 'key_a', 8)).toBe(5);
    now += 1_000;
    expect(await admitted(limit, 'key_a', 8)).toBe(5);
  });
});
