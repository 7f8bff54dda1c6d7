import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sharedContract } from '../contract-tests/harness/openapi-contract.js';
import { targetFromEnv } from '../contract-tests/harness/target.js';
import { recordFromJournal } from '../contract-tests/partner/record-journal.js';
import type { PartnerReport } from '../contract-tests/partner/partner-report.js';
import { replayContract } from '../contract-tests/partner/replay.js';
import { verifyPartnerContract } from '../contract-tests/partner/verify.js';
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

it("a replay's cleanup refused by the target ends the replay's results and report with what it left there", async () => {
  const api = new HttpApi(mock.url);
  await api.json('POST', '/__mock/org/reset', {});
  const since = new Date().toISOString();
  await api.json('POST', '/api/v1/upload', { name: 'plate.tif', size: 1000 });
  const recorded = (await recordFromJournal(mock.url, ACME_KEY, { consumer: 'c', since })).contract;
  const file = path.join(reports, 'partner-contract.json');
  await writeFile(file, JSON.stringify(recorded));
  const target = targetFromEnv({
    CONTRACT_BASE_URL: mock.url,
    CONTRACT_API_KEY: ACME_KEY,
    CONTRACT_PROFILE: 'mock',
    CONTRACT_REPORT_DIR: reports,
  });
  // the replay's only DELETE: its cleanup's, answered "not now" (429 with Retry-After)
  await api.json('POST', '/__mock/faults', { operation_id: 'deleteImage', status: 429, times: 1 });
  expect(await verifyPartnerContract(file, target)).toBe(0);
  const report = JSON.parse(await readFile(path.join(reports, 'partner.json'), 'utf8')) as PartnerReport;
  const last = report.interactions.at(-1)!;
  const image = /image ([0-9a-f-]{36}): DELETE answered 429/.exec(last.note ?? '')?.[1];
  expect(last).toMatchObject({ key: 'cleanup', outcome: 'pass' });
  expect(last.note).toBe(
    `left on the target, kept in the ledger for --cleanup-only: image ${image}: DELETE answered 429: left for --cleanup-only`,
  );
  expect((await api.send('GET', `/api/v1/upload/${image}`)).status).toBe(200);
  expect(await readFile(path.join(reports, 'partner.md'), 'utf8')).toContain(
    `| cleanup of what the replay created | pass | 200 429 | left on the target, kept in the ledger for --cleanup-only: image ${image}`,
  );
}, 120_000);
