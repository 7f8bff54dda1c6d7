/**
 * Pools handed to the mock by its caller (ServiceOverrides.decoderPools): the mock converts on
 * them, and leaves them, children included, to the caller when it closes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { apiClient } from '../../../test-support/api-client.js';
import { startMockServer } from '../../server.js';
import type { DecoderPools } from '../../services/decoder-pools.js';
import { createDecoderPool } from '../../runtime/decoder-pool/decoder-pools.js';

const pool = () => createDecoderPool({ size: 1, memoryCeilingBytes: 1024 ** 3, timeBudgetMs: 60_000 });
const pools: DecoderPools = { convert: pool(), segment: pool() };
afterAll(() => Promise.all([pools.convert.close(), pools.segment.close()]));

describe("a mock on its caller's decoder pools", () => {
  it('converts on them, leaves their children running when it closes, and the next mock reuses them', async () => {
    const first = await startMockServer({ port: 0, logLevel: 'silent' }, { decoderPools: pools });
    await apiClient(first.url).uploadTiff(); // throws unless the image is ready
    const children = pools.convert.childPids;
    expect(children).toHaveLength(1);
    await first.close();
    expect(pools.convert.childPids).toEqual(children);

    const second = await startMockServer({ port: 0, logLevel: 'silent' }, { decoderPools: pools });
    try {
      await apiClient(second.url).uploadTiff();
      expect(pools.convert.childPids).toEqual(children);
    } finally {
      await second.close();
    }
    expect(pools.convert.childPids).toEqual(children);
  });
});
