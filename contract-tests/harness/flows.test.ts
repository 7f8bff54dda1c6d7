import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { CheckContext } from './check.js';
import { Cleanup, ledgerFile } from './cleanup.js';
import { trackShare } from './flows.js';
import { targetFromEnv } from './target.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'flows-'));
  vi.stubEnv('CONTRACT_REPORT_DIR', dir);
});
afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

it('writes a share to the ledger under the target behind Prism, as images are', () => {
  const target = targetFromEnv({
    CONTRACT_BASE_URL: 'http://127.0.0.1:4010',
    CONTRACT_API_KEY: 'sk_test_main',
    CONTRACT_VIA_PRISM: '1',
    CONTRACT_TARGET_LABEL: 'https://staging.example',
  });
  trackShare({ target, cleanup: new Cleanup() } as CheckContext, 'share-1');
  const entry = JSON.parse(readFileSync(ledgerFile(), 'utf8')) as { kind: string; baseUrl: string };
  expect(entry).toMatchObject({ kind: 'share', id: 'share-1', baseUrl: 'https://staging.example' });
});
