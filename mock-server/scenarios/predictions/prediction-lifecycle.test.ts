import { readdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeTiff } from '../../../fixtures/generator/tiff-writer.js';
import { renderPreset } from '../../../fixtures/generator/synthetic.js';
import type { RunningMock } from '../../server.js';

let mock: RunningMock;
let key: string;
let orgId: string;

async function call(method: string, route: string, body?: unknown, auth = key) {
  const response = await fetch(mock.url + route, {
    method,
    headers: { authorization: `Bearer ${auth}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown> & { detail?: string },
  };
}

async function readyImage(): Promise<string> {
  const { plane } = renderPreset('easy-8bit-256');
  const form = new FormData();
  form.append(
    'file',
    new Blob([
      encodeTiff([{ width: plane.width, height: plane.height, bitsPerSample: 8, data: plane.data }]),
    ]),
    'cells.tif',
  );
  const response = await fetch(`${mock.url}/api/v1/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  return ((await response.json()) as { image: { id: string } }).image.id;
}

async function settle(id: string) {
  for (let i = 0; i < 400; i++) {
    const { body } = await call('GET', `/api/v1/predict/${id}`);
    if (body.status === 'COMPLETED' || body.status === 'FAILED') return body;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('prediction did not settle');
}

beforeAll(async () => {
  mock = await startInstantMock();
  const org = await call(
    'POST',
    '/__mock/organizations',
    { name: 'predictions', plan: { storage_cap_images: 50, monthly_analysis_cap: 3 } },
    '',
  );
  key = (org.body.api_keys as string[])[0];
  orgId = org.body.id as string;
});
afterAll(() => mock.close());

describe('predictions', () => {
  it('a remote model added through the control plane segments through its HTTP worker', async () => {
    const worker = http.createServer(async (req, res) => {
      for await (const _ of req) void _;
      const width = Number(req.headers['x-width']);
      const height = Number(req.headers['x-height']);
      const labels = Buffer.alloc(width * height * 4);
      for (let y = 10; y < 20; y++) for (let x = 10; x < 30; x++) labels.writeInt32LE(1, (y * width + x) * 4);
      res.end(labels);
    });
    await new Promise<void>((resolve) => worker.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(worker.address() as AddressInfo).port}/`;
      const model = await call(
        'POST',
        `/__mock/organizations/${orgId}/models`,
        { name: 'fake-cellpose', engine: 'remote', url },
        '',
      );
      expect(model.body).toMatchObject({ name: 'fake-cellpose', kind: 'custom' });
      const ack = await call('POST', '/api/v1/predict', {
        image_id: await readyImage(),
        model_id: model.body.id,
      });
      const done = await settle(ack.body.prediction_id as string);
      expect(done).toMatchObject({ status: 'COMPLETED', cell_count: 1 });
      const csv = await fetch(
        `${mock.url}/api/v1/export/${done.segmentation_id}/measurements.csv?columns=area_px&columns=segmentation_source`,
        {
          headers: { authorization: `Bearer ${key}` },
        },
      );
      expect((await csv.text()).trim().split(/\r?\n/)[1]).toBe('200,remote/1.0.0');
    } finally {
      worker.close();
    }
  });

  it('deleting the image while its prediction runs removes the prediction, writes no segmentation and crashes nothing', async () => {
    await call(
      'PUT',
      '/__mock/predictions/progress',
      { organization_id: orgId, start_delay_ms: 300, run_delay_ms: 0 },
      '',
    );
    const imageId = await readyImage();
    const segmentationsBefore = readdirSync(mock.services.paths.segmentations);
    const models = await call('GET', '/api/v1/models');
    const ack = await call('POST', '/api/v1/predict', {
      image_id: imageId,
      model_id: (models.body as unknown as Array<{ id: string }>)[0].id,
    });
    expect((await call('DELETE', `/api/v1/image/${imageId}`)).status).toBe(200);
    // Everything derived from the image goes with it, the prediction included (x-assumed).
    expect((await call('GET', `/api/v1/predict/${ack.body.prediction_id as string}`)).status).toBe(404);
    await mock.services.idle();
    expect(await mock.services.state.predictions.idsOfImage(imageId)).toEqual([]);
    expect(readdirSync(mock.services.paths.segmentations)).toEqual(segmentationsBefore);
    expect((await fetch(`${mock.url}/__mock/health`)).status).toBe(200);
    await call('PUT', '/__mock/predictions/progress', { organization_id: orgId }, '');
  });

  it('counts each submitted prediction once, skipped ones not at all, and resets with the month', async () => {
    await call('PUT', `/__mock/organizations/${orgId}/usage`, { analyses_this_month: 0 }, '');
    await call(
      'PUT',
      '/__mock/predictions/progress',
      { organization_id: orgId, start_delay_ms: 200, run_delay_ms: 0 },
      '',
    );
    const imageId = await readyImage();
    const modelId = ((await call('GET', '/api/v1/models')).body as unknown as Array<{ id: string }>)[0].id;
    const first = await call('POST', '/api/v1/predict', { image_id: imageId, model_id: modelId });
    const second = await call('POST', '/api/v1/predict', { image_id: imageId, model_id: modelId });
    expect(second.body).toMatchObject({ status: 'skipped', prediction_id: first.body.prediction_id });
    await settle(first.body.prediction_id as string);
    await call('PUT', '/__mock/predictions/progress', { organization_id: orgId }, '');
    const usage = async () =>
      (
        (await call('GET', '/__mock/organizations', undefined, '')).body as unknown as Array<{
          id: string;
          usage: { analyses_this_month: number };
        }>
      ).find((o) => o.id === orgId)!.usage.analyses_this_month;
    expect(await usage()).toBe(1);
    await call('POST', '/api/v1/predict', { image_id: imageId, model_id: modelId });
    await call('POST', '/api/v1/predict', { image_id: await readyImage(), model_id: modelId });
    // a third image: an identical request could still be in flight and answer `skipped` instead
    const refused = await call('POST', '/api/v1/predict', {
      image_id: await readyImage(),
      model_id: modelId,
    });
    expect(refused.status).toBe(402);
    expect(refused.body.detail).toMatch(/allows 3 analyses per month/);
    const now = new Date((await call('GET', '/__mock/clock', undefined, '')).body.now as string);
    await call(
      'POST',
      '/__mock/clock',
      { now: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 1)).toISOString() },
      '',
    );
    expect((await call('POST', '/api/v1/predict', { image_id: imageId, model_id: modelId })).status).toBe(
      200,
    );
    await call('POST', '/__mock/clock', { reset: true }, '');
  });

  it('refuses an image that is not ready with 422, the status of every state conflict, and says why', async () => {
    const opened = await call('POST', '/api/v1/upload', { name: 'x.tif', size: 10 });
    const modelId = ((await call('GET', '/api/v1/models')).body as unknown as Array<{ id: string }>)[0].id;
    const response = await call('POST', '/api/v1/predict', {
      image_id: (opened.body.image as { id: string }).id,
      model_id: modelId,
    });
    expect(response.status).toBe(422);
    expect(response.body.detail).toContain("upload_status is 'uploading'");
  });
});
