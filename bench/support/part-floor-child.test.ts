/**
 * The uploads section's floor peer stores each part at its offset and answers its MD5 as the ETag,
 * in whatever order the parts come: a floor that skipped the work would flatter the mock's ratio.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sendBody } from './body-request.js';
import { startTsChild, type Child } from './processes.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'part-floor-'));
let floor: Child | undefined;
afterAll(async () => {
  await floor?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('part floor peer', () => {
  it('writes each part at its offset, answers its MD5 as the ETag', async () => {
    floor = await startTsChild('bench/support/part-floor-child.ts', [], { env: { PART_FLOOR_DIR: dir } });
    const partSize = 300_000;
    const whole = Buffer.alloc(2 * partSize + 1234);
    for (let i = 0; i < whole.length; i++) whole[i] = (i * 7919) % 251;
    const parts = [2, 3, 1].map((n) => ({ n, bytes: whole.subarray((n - 1) * partSize, n * partSize) }));
    for (const { n, bytes } of parts) {
      const answer = await sendBody(
        `${floor.url}/upload.bin/${n}?partSize=${partSize}`,
        'PUT',
        {},
        { bytes },
      );
      expect(answer.status, `part ${n}`).toBe(200);
      expect(answer.headers.etag).toBe(`"${createHash('md5').update(bytes).digest('hex')}"`);
    }
    expect(readFileSync(path.join(dir, 'upload.bin')).equals(whole)).toBe(true);
  });
});
