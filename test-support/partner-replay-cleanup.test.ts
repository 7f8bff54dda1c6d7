import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sharedContract } from '../contract-tests/harness/openapi-contract.js';
import { targetFromEnv } from '../contract-tests/harness/target.js';
import { recordFromJournal } from '../contract-tests/partner/record-journal.js';
import { replayContract } from '../contract-tests/partner/replay.js';
import type { RunningMock } from '../mock-server/server.js';
import { ACME_KEY, HttpApi } from './api-client.js';
import { startInstantMock } from './instant-mock.js';

let mock: RunningMock;
let reports: string;
beforeAll(async () => {
  mock = await startInstantMock();
  reports = await mkdtemp(path.join(os.tmpdir(), 'partner-replay-cleanup-'));
  process.env.CONTRACT_REPORT_DIR = reports;
});
afterAll(async () => {
  await mock?.close();
  await rm(reports, { recursive: true, force: true });
});

it('a replayed resumable POST /upload names its image with the run prefix, so cleanup deletes it', async () => {
  const api = new HttpApi(mock.url);
  await api.json('POST', '/__mock/org/reset', {});
  await api.json('POST', '/api/v1/upload', { name: 'plate.tif', size: 1000 });
  const recorded = (await recordFromJournal(mock.url, ACME_KEY, { consumer: 'c' })).contract;
  const target = targetFromEnv({
    CONTRACT_BASE_URL: mock.url,
    CONTRACT_API_KEY: ACME_KEY,
    CONTRACT_PROFILE: 'mock',
    CONTRACT_REPORT_DIR: reports,
  });
  const results = await replayContract(recorded, sharedContract(), target);
  expect(results.map((r) => r.outcome)).toContain('pass');
  const ledger = (await readFile(path.join(reports, 'contract-ledger.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: string; done?: boolean });
  const id = ledger[0]!.id;
  expect(ledger.some((e) => e.id === id && e.done)).toBe(true);
  expect((await api.send('GET', `/api/v1/upload/${id}`)).status).toBe(404);
}, 120_000);
