import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { rgwUnavailableReason, startThrowawayRgw } from './throwaway-rgw.js';

const unavailable = rgwUnavailableReason();

describe.skipIf(unavailable)(`a throwaway RGW${unavailable ? ` (skipped: ${unavailable})` : ''}`, () => {
  it('answers S3 below the ephemeral port range, and leaves no daemon and no folder after stop', async () => {
    const parent = await mkdtemp(path.join(os.tmpdir(), 'rgw-test-'));
    const dir = path.join(parent, 'cluster');
    try {
      const rgw = await startThrowawayRgw({ dir });
      expect(Number(new URL(rgw.endpoint).port)).toBeLessThan(32_768);
      // An anonymous list of the bucket is refused by S3 itself: RGW answers, in S3's XML.
      const anonymous = await fetch(`${rgw.endpoint}/${rgw.bucket}`);
      expect(anonymous.status).toBe(403);
      expect(await anonymous.text()).toContain('<Code>AccessDenied</Code>');
      await rgw.stop();
      expect(existsSync(dir)).toBe(false);
      await expect(fetch(`${rgw.endpoint}/`)).rejects.toThrow();
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  }, 120_000);
});
