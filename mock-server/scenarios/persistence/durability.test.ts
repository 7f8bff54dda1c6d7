/**
 * What "acknowledged means durable" promises, over HTTP against a running mock: a delete removes
 * everything derived (no export, share page or file of it is left), part URLs expire by the mock's
 * clock, and a full disk answers 507, keeps nothing of the refused request and recovers by itself.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { ACME_KEY, ACME_ORG, apiClient, tokenOf } from '../../../test-support/api-client.js';
import type { RunningMock } from '../../server.js';

const EXPORTS = ['overlay.png', 'measurements.csv', 'rois.geojson', 'rois.zip'];

describe('a delete removes everything derived from the image', () => {
  let mock: RunningMock;
  let api: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    mock = await startInstantMock();
    api = apiClient(mock.url);
  });
  afterAll(() => mock?.close());

  async function exportStatus(segmentationId: string, name: string): Promise<number> {
    const response = await fetch(`${mock.url}/api/v1/export/${segmentationId}/${name}`, {
      headers: { authorization: `Bearer ${ACME_KEY}` },
    });
    await response.arrayBuffer();
    return response.status;
  }

  for (const route of ['/api/v1/image', '/api/v1/upload']) {
    it(`DELETE ${route}/{id}: exports, share page, prediction, share and files are gone`, async () => {
      const done = await api.completedSegmentation();
      const share = await api.createShare(done.segmentationId);
      const image = (await mock.services.state.images.get(done.imageId))!;
      const segmentationDir = path.join(mock.services.paths.segmentations, done.segmentationId);
      const derivedDir = path.dirname(image.derived!.previewPath);
      for (const name of EXPORTS) expect(await exportStatus(done.segmentationId, name)).toBe(200);
      expect((await fetch(`${mock.url}/share/${tokenOf(share)}`)).status).toBe(200);
      expect(existsSync(segmentationDir) && existsSync(derivedDir)).toBe(true);

      expect((await api.call('DELETE', `${route}/${done.imageId}`)).status).toBe(200);

      for (const name of EXPORTS) expect(await exportStatus(done.segmentationId, name)).toBe(404);
      expect((await fetch(`${mock.url}/share/${tokenOf(share)}`)).status).toBe(404);
      expect((await api.call('GET', `/api/v1/predict/${done.predictionId}`)).status).toBe(404);
      expect((await api.call('GET', `/api/v1/shares/${share.id}`)).status).toBe(404);
      expect(existsSync(segmentationDir)).toBe(false);
      expect(existsSync(derivedDir)).toBe(false);
      expect(await mock.services.store.exists(image.storageKey)).toBe(false);
    });
  }
});

describe('presigned part URLs', () => {
  it('expire by the mock clock: advancing it past the expiry makes a part PUT answer 403', async () => {
    const mock = await startInstantMock({ presignExpirySeconds: 600 });
    try {
      const api = apiClient(mock.url);
      const opened = await api.call('POST', '/api/v1/upload', { name: 'a.tif', size: 10, resumable: true });
      expect(opened.status).toBe(200);
      const url = opened.body.upload.urls[0].url as string;
      expect((await fetch(url, { method: 'PUT', body: '01234' })).status).toBe(200);
      expect((await api.call('POST', '/__mock/clock', { advance_ms: 601_000 }, null)).status).toBe(200);
      const late = await fetch(url, { method: 'PUT', body: '01234' });
      expect(late.status).toBe(403);
      expect(await late.text()).toContain('expired');
    } finally {
      await mock.close();
    }
  });
});

/** A small tmpfs, so the disk can be filled and emptied on purpose; undefined where mounting is not allowed. */
function mountTmpfs(megabytes: number): string | undefined {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'disk-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
}

/** Fills the file system at `dir` until a write fails; answers the filler's path. */
async function fillDisk(dir: string): Promise<string> {
  const filler = path.join(dir, 'filler');
  const handle = await open(filler, 'w');
  const block = Buffer.alloc(1 << 20, 1);
  try {
    for (;;) await handle.write(block);
  } catch {
    // ENOSPC: full
  }
  try {
    for (;;) await handle.write(block, 0, 4096);
  } catch {
    // not even a page left
  }
  await handle.close();
  return filler;
}

const tmpfs = mountTmpfs(48);
describe.skipIf(!tmpfs)('a full disk', () => {
  let mock: RunningMock;
  let api: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    mkdirSync(path.join(tmpfs!, 'data'));
    mock = await startInstantMock({
      dataDir: path.join(tmpfs!, 'data'),
      logLevel: process.env.DEBUG_LOG ?? 'silent',
    });
    api = apiClient(mock.url);
  });
  afterAll(async () => {
    await mock?.close();
    execFileSync('umount', [tmpfs!]);
    rmSync(tmpfs!, { recursive: true, force: true });
  });

  it('answers 507 with a detail, keeps nothing of the refused writes, and recovers once space is back', async () => {
    const done = await api.completedSegmentation();
    const share = await api.createShare(done.segmentationId);
    const imagesBefore = await mock.services.state.images.countOf(ACME_ORG);
    const filler = await fillDisk(tmpfs!);

    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(256 * 1024, 7)]), 'full.tif');
    const single = await fetch(`${mock.url}/api/v1/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ACME_KEY}` },
      body: form,
    });
    const refused = [
      { status: single.status, body: (await single.json()) as { detail: string } },
      await api.call('POST', '/api/v1/image', { name: 'full.tif', size: 1000 }),
      await api.call('POST', '/api/v1/upload', { name: 'full.tif', size: 1000, resumable: true }),
      await api.call('DELETE', `/api/v1/shares/${share.id}`),
      await api.call('POST', '/api/v1/predict', { image_id: done.imageId, model_id: done.modelId }),
    ];
    for (const answer of refused) {
      expect(answer, `${refused.indexOf(answer)}: ${JSON.stringify(answer)}`).toMatchObject({ status: 507 });
      expect(answer.body.detail).toMatch(/disk is full/);
    }
    expect(await mock.services.state.images.countOf(ACME_ORG)).toBe(imagesBefore);
    expect((await api.getShare(share.id)).revoked_at).toBeNull();
    // A snapshot is written whole to the data folder before it is sent: no room, no archive.
    const take = await fetch(`${mock.url}/__mock/snapshot`);
    expect(take.status).toBe(507);
    expect(((await take.json()) as { detail: string }).detail).toMatch(/disk is full/);

    await rm(filler);
    expect((await fetch(`${mock.url}/__mock/snapshot`)).status).toBe(200);
    expect((await api.call('POST', '/api/v1/image', { name: 'after.tif', size: 1000 })).status).toBe(200);
    expect((await api.call('DELETE', `/api/v1/shares/${share.id}`)).status).toBe(200);
    expect((await api.getShare(share.id)).revoked_at).not.toBeNull();
    expect(await mock.services.state.images.countOf(ACME_ORG)).toBe(imagesBefore + 1);
  });
});
if (!tmpfs) console.warn('disk-full test skipped: cannot mount a tmpfs here (needs root)');
