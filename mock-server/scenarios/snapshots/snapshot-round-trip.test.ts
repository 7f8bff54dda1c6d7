/**
 * A snapshot is the whole state: one taken after a full round trip (upload, predict, exports, a
 * share with views, caps, usage, both clocks moved) and loaded into a fresh mock answers every read,
 * export and share page exactly as the first mock does; the same state gives the same archive.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ACME_ORG,
  apiClient,
  type HttpApi,
  type LinkShare,
  tokenOf,
} from '../../../test-support/api-client.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import type { RunningMock } from '../../server.js';

let first: RunningMock;
let second: RunningMock;
beforeAll(async () => {
  [first, second] = await Promise.all([startInstantMock(), startInstantMock()]);
});
afterAll(async () => {
  await Promise.all([first?.close(), second?.close()]);
});

async function snapshotOf(mock: RunningMock, route = '/__mock/snapshot', key?: string): Promise<Buffer> {
  const response = await fetch(`${mock.url}${route}`, {
    headers: key ? { authorization: `Bearer ${key}` } : {},
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/x-tar');
  return Buffer.from(await response.arrayBuffer());
}

async function load(mock: RunningMock, archive: Buffer): Promise<Response> {
  return fetch(`${mock.url}/__mock/snapshot`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-tar' },
    body: archive,
  });
}

interface World {
  imageId: string;
  predictionId: string;
  segmentationId: string;
  share: LinkShare;
}

/** Every answer a partner could compare, read in one fixed order (the share page counts its views). */
async function everyRead(api: HttpApi, base: string, world: World): Promise<Record<string, string>> {
  const reads: Record<string, string> = {};
  const read = async (name: string, url: string, key: string | null = api.key) => {
    const response = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    const bytes = Buffer.from(await response.arrayBuffer());
    const type = response.headers.get('content-type') ?? '';
    // Text as it is (a difference shows where); other bytes by their digest.
    // The two mocks listen on different ports: their own address is the one difference allowed.
    const body = /json|text|csv/.test(type)
      ? bytes.toString('utf8').replaceAll(base, '<base>')
      : createHash('sha256').update(bytes).digest('hex');
    reads[name] = `${response.status} ${type} ${body}`;
  };
  const v1 = `${base}/api/v1`;
  await read('image', `${v1}/upload/${world.imageId}`);
  await read('images', `${v1}/image`);
  await read('prediction', `${v1}/predict/${world.predictionId}`);
  await read('models', `${v1}/models`);
  await read('share', `${v1}/shares/${world.share.id}`);
  for (const file of ['measurements.csv', 'rois.geojson', 'rois.zip', 'overlay.png'])
    await read(file, `${v1}/export/${world.segmentationId}/${file}`);
  await read('share page', `${base}/share/${tokenOf(world.share)}`, null);
  await read('share image', `${base}/share/${tokenOf(world.share)}/image.png`, null);
  await read('share after a view', `${v1}/shares/${world.share.id}`);
  // A view made now is stamped now: its count is compared, its time cannot be.
  reads['share after a view'] = reads['share after a view'].replace(/"last_viewed_at":"[^"]*"/, '');
  await read('thumbnail', `${base}/__mock/images/${world.imageId}/thumbnail.png`, null);
  await read('organizations', `${base}/__mock/organizations`, null);
  const clock = (await (await fetch(`${base}/__mock/clock`)).json()) as { offset_ms: number };
  reads['clock offset'] = String(clock.offset_ms);
  const own = (await (await api.send('GET', '/__mock/org/clock')).json()) as { offset_ms: number };
  reads['organization clock offset'] = String(own.offset_ms);
  return reads;
}

it(
  'a snapshot loaded into a fresh mock answers every read, export and share page as the first mock',
  { timeout: 600_000 },
  async () => {
    const api = apiClient(first.url);
    const done = await api.completedSegmentation();
    const share = await api.createShare(done.segmentationId);
    for (let view = 0; view < 3; view++)
      expect((await fetch(`${first.url}/share/${tokenOf(share)}`)).status).toBe(200);
    await api.json('PUT', `/__mock/organizations/${ACME_ORG}/plan`, {
      name: 'lab',
      storage_cap_images: 7,
      monthly_analysis_cap: 11,
    });
    await api.json('POST', '/__mock/clock', { advance_ms: 3 * 24 * 3600 * 1000 });
    await api.json('POST', '/__mock/org/clock', { advance_ms: 3600 * 1000 });
    const world = { ...done, share };

    const archive = await snapshotOf(first);
    expect(await snapshotOf(first), 'the same state gives the same bytes').toEqual(archive);

    const loaded = await load(second, archive);
    expect(loaded.status, await loaded.clone().text()).toBe(200);
    const summary = (await loaded.json()) as { tables: Record<string, number>; files: number };
    expect(summary.tables).toMatchObject({ images: 1, predictions: 1, segmentations: 1, shares: 1 });
    expect(await snapshotOf(second), 'the loaded state gives back the same archive').toEqual(archive);

    const before = await everyRead(api, first.url, world);
    const after = await everyRead(apiClient(second.url), second.url, world);
    expect(after).toEqual(before);
    expect(JSON.parse(before.share.split(' ').slice(3).join(' ')).view_count).toBe(3);
  },
);

it("an organization's own snapshot holds its data and nobody else's", async () => {
  const api = apiClient(first.url);
  const archive = await snapshotOf(first, '/__mock/org/snapshot', api.key!);
  const manifest = JSON.parse(
    archive.subarray(512, 512 + parseInt(archive.toString('ascii', 124, 135), 8)).toString(),
  );
  expect(manifest.scope).toEqual({ kind: 'organization', organization_id: ACME_ORG });
  expect(manifest.tables.organizations).toBe(1);
  expect(archive.includes(Buffer.from('"beta'))).toBe(false);
});

it(
  'an outcome held until a poll travels with its segmentation: loaded, its polls complete it and its exports answer',
  { timeout: 300_000 },
  async () => {
    const api = apiClient(first.url);
    await api.json('PUT', '/__mock/org/predictions/progress', { complete_after_polls: 3 });
    const imageId = await api.uploadTiff();
    const models = (await api.json('GET', '/api/v1/models')) as Array<{ id: string; name: string }>;
    const ack = await api.predict(imageId, models.find((m) => m.name === 'nuclei-fluorescence')!.id);
    // Not polled: a poll counts towards the hold. The run is done once the hold is in the state.
    let archive = await snapshotOf(first);
    while (!archive.includes(`held-outcome/${ack.prediction_id}`)) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      archive = await snapshotOf(first);
    }
    await api.json('PUT', '/__mock/org/predictions/progress', {});

    const loaded = await load(second, archive);
    expect(loaded.status, await loaded.clone().text()).toBe(200);
    const other = apiClient(second.url);
    let prediction = { status: '', segmentation_id: '' };
    for (let poll = 0; poll < 3; poll++)
      prediction = (await other.json('GET', `/api/v1/predict/${ack.prediction_id}`)) as typeof prediction;
    expect(prediction.status).toBe('COMPLETED');
    for (const file of ['measurements.csv', 'rois.geojson', 'rois.zip', 'overlay.png'])
      expect(
        (await other.send('GET', `/api/v1/export/${prediction.segmentation_id}/${file}`)).status,
        file,
      ).toBe(200);
  },
);

it('loads and a reset at once each run whole, one after the other', { timeout: 300_000 }, async () => {
  // The second mock: nothing of it is in flight, which a load would take up and run on.
  const archive = await snapshotOf(second);
  const answers = await Promise.all([
    load(second, archive),
    load(second, archive),
    fetch(`${second.url}/__mock/reset`, { method: 'POST' }),
    load(second, archive),
  ]);
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
  // Whichever of them ran last, one more load puts the archive's state back whole.
  expect((await load(second, archive)).status).toBe(200);
  expect(await snapshotOf(second)).toEqual(archive);
});
