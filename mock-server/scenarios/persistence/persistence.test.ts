import { startMockProcess } from '../../../test-support/crash/mock-process.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { REPO_ROOT } from '../../../test-support/launched-mock.js';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeTiff } from '../../../fixtures/generator/tiff-writer.js';
import { renderPreset } from '../../../fixtures/generator/synthetic.js';
import { startMockServer } from '../../server.js';

const KEY = 'sk_test_acme_4f9a1c7e2b8d4a6f9c3e5b7d1a2c4e6f';
const dirs: string[] = [];

function dataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mock-data-'));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tiff(): Buffer {
  const { plane } = renderPreset('easy-8bit-256');
  return encodeTiff([{ width: plane.width, height: plane.height, bitsPerSample: 8, data: plane.data }]);
}

async function api(base: string, method: string, route: string, body?: unknown) {
  const response = await fetch(`${base}/api/v1${route}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text,
  };
}

/** Upload, predict to COMPLETED, share: the partner's work of a day. */
async function dayOfWork(base: string) {
  const form = new FormData();
  form.append('file', new Blob([tiff()]), 'cells.tif');
  const upload = (await (
    await fetch(`${base}/api/v1/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}` },
      body: form,
    })
  ).json()) as { image: { id: string } };
  const models = await api(base, 'GET', '/models');
  const ack = await api(base, 'POST', '/predict', { image_id: upload.image.id, model_id: models.body[0].id });
  let prediction;
  for (let i = 0; i < 200; i++) {
    prediction = (await api(base, 'GET', `/predict/${ack.body.prediction_id}`)).body;
    if (prediction.status === 'COMPLETED') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const share = await api(base, 'POST', '/shares', { segmentation_id: prediction.segmentation_id });
  const opened = await api(base, 'POST', '/upload', { name: 'later.tif', size: 1000 });
  return { imageId: upload.image.id, prediction, share: share.body, opened: opened.body };
}

describe('--data-dir', () => {
  it('keeps images, predictions, exports, shares and open uploads across a restart', async () => {
    const dir = dataDir();
    const first = await startInstantMock({ dataDir: dir });
    const work = await dayOfWork(first.url);
    const csvBefore = (
      await api(first.url, 'GET', `/export/${work.prediction.segmentation_id}/measurements.csv`)
    ).body;
    await first.close();

    const second = await startMockServer({ port: 0, logLevel: 'silent', dataDir: dir });
    try {
      expect((await api(second.url, 'GET', `/upload/${work.imageId}`)).body.upload_status).toBe('ready');
      const prediction = (await api(second.url, 'GET', `/predict/${work.prediction.prediction_id}`)).body;
      expect(prediction).toMatchObject({
        status: 'COMPLETED',
        segmentation_id: work.prediction.segmentation_id,
        cell_count: work.prediction.cell_count,
      });
      expect(
        (await api(second.url, 'GET', `/export/${prediction.segmentation_id}/measurements.csv`)).body,
      ).toBe(csvBefore);
      const page = await fetch(work.share.url.replace(first.url, second.url));
      expect(page.status).toBe(200);
      // the resumable upload opened yesterday completes today, through the URL handed out yesterday
      const partUrl = work.opened.upload.urls[0].url.replace(first.url, second.url);
      expect((await fetch(partUrl, { method: 'PUT', body: Buffer.alloc(1000) })).status).toBe(200);
      expect((await api(second.url, 'POST', `/upload/${work.opened.image.id}/complete`)).status).toBe(202);
    } finally {
      await second.close();
    }
  });

  it('loads after a kill -9 at any moment', async () => {
    const dir = dataDir();
    // as a user starts it (bin/cellseg-mock.js), so the kill is a real SIGKILL of the server's process
    const { url, kill } = await startMockProcess(REPO_ROOT, dir);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++)
      ids.push((await api(url, 'POST', '/upload', { name: `n${i}.tif`, size: 100 })).body.image.id);
    await new Promise((r) => setTimeout(r, 600)); // past the autosave interval
    for (let i = 0; i < 30; i++)
      void api(url, 'POST', '/upload', { name: `late${i}.tif`, size: 100 }).catch(() => undefined);
    await kill('SIGKILL');

    const again = await startMockServer({ port: 0, logLevel: 'silent', dataDir: dir });
    try {
      for (const id of ids) expect((await api(again.url, 'GET', `/upload/${id}`)).status).toBe(200);
    } finally {
      await again.close();
    }
  });

  it('starts from the seed with an empty data folder', async () => {
    const mock = await startMockServer({ port: 0, logLevel: 'silent', dataDir: dataDir() });
    try {
      expect((await api(mock.url, 'GET', '/models')).status).toBe(200);
    } finally {
      await mock.close();
    }
  });
});
