/**
 * Pools handed to the mock by its caller (ServiceOverrides.decoderPools): the mock converts on
 * them, and leaves them, children included, to the caller when it closes.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startMockServer, type RunningMock } from '../../server.js';
import type { DecoderPools } from '../../services.js';
import { createDecoderPool } from './decoder-pools.js';

const seed = JSON.parse(readFileSync(path.resolve('fixtures/seed.json'), 'utf8')) as {
  organizations: Array<{ api_keys: string[] }>;
};
const KEY = seed.organizations[0].api_keys[0];
const TIFF = readFileSync(path.resolve('fixtures/corpus/gray-16bit.tif'));

const pool = () =>
  createDecoderPool({ size: 1, warm: 0, memoryCeilingBytes: 1024 ** 3, timeBudgetMs: 60_000 });
const pools: DecoderPools = { convert: pool(), segment: pool() };
afterAll(() => Promise.all([pools.convert.close(), pools.segment.close()]));

async function uploadStatus(mock: RunningMock): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([TIFF]), 'cells.tif');
  const response = await fetch(`${mock.url}/api/v1/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}` },
    body: form,
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { image: { upload_status: string } }).image.upload_status;
}

describe("a mock on its caller's decoder pools", () => {
  it('converts on them, leaves their children running when it closes, and the next mock reuses them', async () => {
    const first = await startMockServer({ port: 0, logLevel: 'silent' }, { decoderPools: pools });
    expect(await uploadStatus(first)).toBe('ready');
    const children = pools.convert.childPids;
    expect(children).toHaveLength(1);
    await first.close();
    expect(pools.convert.childPids).toEqual(children);

    const second = await startMockServer({ port: 0, logLevel: 'silent' }, { decoderPools: pools });
    try {
      expect(await uploadStatus(second)).toBe('ready');
      expect(pools.convert.childPids).toEqual(children);
    } finally {
      await second.close();
    }
    expect(pools.convert.childPids).toEqual(children);
  });
});
