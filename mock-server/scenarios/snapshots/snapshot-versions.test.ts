/**
 * Older snapshots keep loading: fixtures/snapshots/v1.tar was written by the first snapshot version
 * (scripts/make-snapshot-fixture.ts) and is never rewritten, so a change of schema or of the format
 * that stops it loading fails here. The same file starts a mock through the command, with one
 * option, as a CI job would.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME_KEY, ACME_ORG, apiClient } from '../../../test-support/api-client.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { launchMock, REPO_ROOT, type LaunchedMock } from '../../../test-support/launched-mock.js';
import type { RunningMock } from '../../server.js';

const V1 = path.join(REPO_ROOT, 'fixtures', 'snapshots', 'v1.tar');
/** What fixtures/snapshots/v1.tar holds (printed by the script that wrote it). */
const IN_V1 = {
  imageId: '54766d65-6d39-4718-91dd-6f263be28647',
  predictionId: '52bdd08c-edb4-452f-9447-6818115f9644',
  segmentationId: '3dac2135-057b-4714-afc4-6b9314286231',
  cellCount: 2,
  shareId: '66df1a17-8ca6-45ab-99de-2467572c6aa8',
  token: 'RQBMUmZ_084_jf3XNJdMfofJ6Ys2fZWKPI7QrQYijpc',
};

/** The reads every mock started from v1 answers the same way. */
async function expectV1(base: string): Promise<void> {
  const api = apiClient(base, ACME_KEY);
  const image = await api.json<{ upload_status: string; name: string }>(
    'GET',
    `/api/v1/upload/${IN_V1.imageId}`,
  );
  expect(image).toMatchObject({ upload_status: 'ready', name: 'corner.tif' });
  const prediction = await api.json<{ status: string; cell_count: number }>(
    'GET',
    `/api/v1/predict/${IN_V1.predictionId}`,
  );
  expect(prediction).toMatchObject({ status: 'COMPLETED', cell_count: IN_V1.cellCount });
  const csv = await api.send('GET', `/api/v1/export/${IN_V1.segmentationId}/measurements.csv`);
  expect(csv.status).toBe(200);
  expect((await csv.text()).trim().split('\n')).toHaveLength(1 + IN_V1.cellCount);
  const share = await api.json<{ view_count: number }>('GET', `/api/v1/shares/${IN_V1.shareId}`);
  expect(share.view_count).toBe(2);
  expect((await fetch(`${base}/share/${IN_V1.token}`)).status).toBe(200);
  const orgs = await api.json<Array<{ id: string; plan: object }>>('GET', '/__mock/organizations');
  expect(orgs.find((o) => o.id === ACME_ORG)?.plan).toEqual({
    name: 'fixture',
    storage_cap_images: 9,
    monthly_analysis_cap: 13,
  });
  expect((await api.json<{ offset_ms: number }>('GET', '/__mock/clock')).offset_ms).toBe(86_400_000);
  expect((await api.json<{ offset_ms: number }>('GET', '/__mock/org/clock')).offset_ms).toBe(3_600_000);
}

describe('a version 1 snapshot', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startInstantMock({ snapshot: V1 });
  });
  afterAll(async () => {
    await mock?.close();
  });

  it('loads at start and answers as the mock it was taken from', async () => {
    await expectV1(mock.url);
  });

  it('loads through POST /__mock/snapshot too, replacing what the mock held', async () => {
    const api = apiClient(mock.url);
    await api.json('POST', '/__mock/reset');
    expect((await api.send('GET', `/api/v1/upload/${IN_V1.imageId}`)).status).toBe(404);
    const loaded = await fetch(`${mock.url}/__mock/snapshot`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-tar' },
      body: await import('node:fs/promises').then((fs) => fs.readFile(V1)),
    });
    expect(loaded.status).toBe(200);
    expect(await loaded.json()).toMatchObject({ tables: { images: 1, shares: 1 }, files: 6 });
    await expectV1(mock.url);
  });
});

describe('the command', () => {
  let launched: LaunchedMock | undefined;
  afterAll(() => launched?.kill());

  it('starts from a snapshot file with one option, --snapshot', { timeout: 120_000 }, async () => {
    launched = launchMock(process.execPath, ['bin/cellseg-mock.js', '--port', '0', '--snapshot', V1]);
    await expectV1(await launched.url);
    launched.child.kill('SIGTERM');
    expect(await launched.exited).toBe(0);
  });

  it('refuses to start from a file that is no snapshot, naming why', { timeout: 120_000 }, async () => {
    launched = launchMock(process.execPath, [
      'bin/cellseg-mock.js',
      '--port',
      '0',
      '--snapshot',
      path.join(REPO_ROOT, 'fixtures', 'seed.json'),
    ]);
    expect(await launched.exited).not.toBe(0);
    expect(launched.output()).toMatch(/snapshot refused: not a snapshot archive/);
  });
});
