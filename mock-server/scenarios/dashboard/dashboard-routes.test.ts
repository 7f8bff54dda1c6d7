/**
 * The dashboard's routes over HTTP: the page and its files, and the reads it adds to the control
 * plane (guarded exactly as the document's control operations are, never journaled, never counted
 * as a poll of a prediction).
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { ACME_KEY, ACME_ORG, BETA_KEY, apiClient } from '../../../test-support/api-client.js';
import type { RunningMock } from '../../server.js';

const ADMIN = 'routes-test-admin-token';
const CELLS_TIF = fileURLToPath(new URL('../../../fixtures/samples/cells.tif', import.meta.url));
let mock: RunningMock;

const call = (
  method: string,
  path: string,
  { key = ADMIN as string | null, body = undefined as unknown } = {},
) => apiClient(mock.url).call(method, path, body, key);

async function upload(key: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([await readFile(CELLS_TIF)]), 'cells.tif');
  const response = await fetch(`${mock.url}/api/v1/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { image: { id: string } }).image.id;
}

beforeAll(async () => {
  mock = await startInstantMock({ adminToken: ADMIN });
});
afterAll(() => mock.close());

describe('the dashboard routes', () => {
  it('serve the page with a strict content policy, and its files from a fixed list only', async () => {
    const page = await call('GET', '/__mock/ui', { key: null });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    // the fault form offers every operation of the document, rendered by the server
    expect(page.text).toContain('<option value="getPrediction">getPrediction</option>');
    for (const src of page.text.matchAll(/(?:src|href)="(\/__mock\/ui\/assets\/[^"]+)"/g)) {
      expect((await call('GET', src[1], { key: null })).status, src[1]).toBe(200);
    }
    const script = await call('GET', '/__mock/ui/assets/dashboard.js', { key: null });
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    for (const bad of [
      '/__mock/ui/assets/..%2f..%2fpackage.json',
      '/__mock/ui/assets/../dashboard-assets.ts',
      '/__mock/ui/assets/nothing.js',
    ]) {
      const answer = await call('GET', bad, { key: null });
      expect(answer.status, bad).toBe(404);
      expect(answer.text).not.toContain('"name"');
    }
  });

  it('guard the added reads exactly as the control plane guards its own', async () => {
    for (const key of [null, 'wrong', ACME_KEY]) {
      const own = await call('GET', '/__mock/organizations', { key });
      for (const path of ['/__mock/images', `/__mock/organizations/${ACME_ORG}/models`]) {
        const added = await call('GET', path, { key });
        expect(added.status, `${path} with ${key}`).toBe(own.status);
        expect(added.body).toEqual(own.body);
        expect(added.headers.get('www-authenticate')).toBe(own.headers.get('www-authenticate'));
      }
    }
    expect((await call('GET', '/__mock/images')).status).toBe(200);
  });

  it('list images of every organization with their predictions and shares, without counting polls or journaling', async () => {
    expect((await call('POST', '/__mock/reset', { body: {} })).status).toBe(200);
    expect(
      (
        await call('PUT', '/__mock/predictions/progress', {
          body: { organization_id: ACME_ORG, complete_after_polls: 2 },
        })
      ).status,
    ).toBe(200);
    const acmeImage = await upload(ACME_KEY);
    const betaImage = await upload(BETA_KEY);
    const models = (await call('GET', `/__mock/organizations/${ACME_ORG}/models`)).body;
    const nuclei = models.find((m: { name: string }) => m.name === 'nuclei-fluorescence');
    expect(nuclei).toMatchObject({ kind: 'base', engine: 'threshold' });
    const created = await call('POST', '/api/v1/predict', {
      key: ACME_KEY,
      body: { image_id: acmeImage, model_id: nuclei.id },
    });
    const predictionId = created.body.prediction_id;

    // However often the dashboard reads, the prediction waits for the API's second poll. The reads
    // are bounded in number; the segmentation of this small image ends well within them, and a read
    // that counted as a poll would then complete it.
    expect((await call('GET', `/api/v1/predict/${predictionId}`, { key: ACME_KEY })).body.status).not.toBe(
      'COMPLETED',
    );
    let acme: { predictions: { status: string }[] } | undefined;
    for (let i = 0; i < 100; i++) {
      const images = (await call('GET', '/__mock/images')).body;
      expect(images.map((image: { id: string }) => image.id).sort()).toEqual([acmeImage, betaImage].sort());
      acme = images.find((image: { id: string }) => image.id === acmeImage);
      expect(acme).toMatchObject({
        name: 'cells.tif',
        organization_id: ACME_ORG,
        upload_status: 'ready',
        has_thumbnail: true,
      });
      expect(['SUBMITTED', 'STARTED']).toContain(acme!.predictions[0].status);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    let done: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 600 && done?.body.status !== 'COMPLETED'; i++) {
      done = await call('GET', `/api/v1/predict/${predictionId}`, { key: ACME_KEY });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(done!.body.status).toBe('COMPLETED');
    const share = await call('POST', '/api/v1/shares', {
      key: ACME_KEY,
      body: { segmentation_id: done!.body.segmentation_id },
    });
    const listed = (await call('GET', `/__mock/images?organization_id=${ACME_ORG}`)).body;
    expect(listed).toHaveLength(1);
    expect(listed[0].predictions[0]).toMatchObject({
      prediction_id: predictionId,
      status: 'COMPLETED',
      cell_count: done!.body.cell_count,
      shares: [{ id: share.body.id, url: share.body.url, view_count: 0, revoked_at: null }],
    });

    const thumbnail = await fetch(`${mock.url}/__mock/images/${acmeImage}/thumbnail.png`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(thumbnail.status).toBe(200);
    expect(
      Buffer.from(await thumbnail.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');

    const journal = (await call('GET', '/__mock/journal?limit=1000')).body as { path: string }[];
    expect(journal.filter((e) => e.path.startsWith('/__mock'))).toEqual([]);
    expect(journal.some((e) => e.path === '/api/v1/predict')).toBe(true);
  });

  it('answer a clear 4xx for an unknown organization, image or limit', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await call('GET', `/__mock/images?organization_id=${unknown}`)).status).toBe(404);
    expect((await call('GET', `/__mock/images/${unknown}/thumbnail.png`)).status).toBe(404);
    expect((await call('GET', `/__mock/organizations/${unknown}/models`)).status).toBe(404);
    // The document declares these ids UUIDs: a malformed one is refused before any lookup.
    expect((await call('GET', '/__mock/images/nope/thumbnail.png')).status).toBe(422);
    expect((await call('GET', '/__mock/organizations/nope/models')).status).toBe(422);
    const bad = await call('GET', '/__mock/images?limit=0');
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toContain("limit: '0'");
  });
});
