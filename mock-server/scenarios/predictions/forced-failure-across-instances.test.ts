/**
 * Two instances on one PostgreSQL, as in the sandbox: the control plane's forced FAILED sent to one
 * instance while the other runs the prediction (still in its start delay) is final. The run
 * elsewhere is not stopped by it; it must find the prediction finished and publish nothing, never
 * turn it back to STARTED and then COMPLETED.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient } from '../../../test-support/api-client.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { startTestPostgres, type TestPostgres } from '../../../test-support/test-postgres.js';
import type { RunningMock } from '../../server.js';

let postgres: TestPostgres;
let dataDir: string;
let running: RunningMock;
let elsewhere: RunningMock | undefined;

beforeAll(async () => {
  postgres = await startTestPostgres();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'forcedfail-'));
}, 120_000);
afterAll(async () => {
  await Promise.all([running?.close(), elsewhere?.close()]);
  await postgres?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it(
  'a forced FAILED stays FAILED while another instance runs the prediction',
  { timeout: 120_000 },
  async () => {
    const shared = { databaseUrl: await postgres.newDatabase(), dataDir, predictionStartDelayMs: 3000 };
    running = await startInstantMock(shared);
    const api = apiClient(running.url);
    const imageId = await api.uploadTiff();
    const { prediction_id: id } = await api.predict(imageId);
    // Claimed by the only worker there is; the second instance comes after, and runs none of it.
    elsewhere = await startInstantMock(shared);
    const forced = await fetch(`${elsewhere.url}/__mock/predictions/outcomes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prediction_id: id, status: 'FAILED', error: 'forced' }),
    });
    expect(forced.status, await forced.clone().text()).toBeLessThan(300);
    const seen: string[] = [];
    const until = Date.now() + 6000;
    while (Date.now() < until) {
      seen.push((await api.call('GET', `/api/v1/predict/${id}`)).body.status);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect([...new Set(seen)]).toEqual(['FAILED']);
  },
);
