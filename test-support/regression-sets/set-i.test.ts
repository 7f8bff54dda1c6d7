import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedMock } from './launch-mock.js';
import type { RunningProxy } from './regression-proxy.js';
import { seedOrganizations } from './regression.js';
import { SET_I } from './set-i/index.js';
import {
  BASE_MODEL_ID,
  SAMPLE_TIFF,
  call,
  expectWellFormed,
  startSetWorld,
  type Reply,
  type SetWorld,
} from './set-test-kit.js';

/**
 * Set I is effective: every regression is well formed, and a representative one of each kind of
 * bug (a field's type, a size in the wrong unit, a status swapped in one case, an organization
 * told what it must not know, a state kept across requests, a cap counted wrong, an export's
 * entries and validators, a filter on the key instead of the organization, a part list off by
 * one, a query that keeps one row) changes an answer a client sees, against a real mock started
 * here. The healthy answer is read through a no-op proxy in front of the same mock.
 */

const [ACME, BETA, TINY] = seedOrganizations();

let world: SetWorld;
let mock: LaunchedMock;
let healthy: RunningProxy;
let imageId = '';
let predictionId = '';
let segmentationId = '';

beforeAll(async () => {
  world = await startSetWorld(SET_I);
  ({ mock, healthy, imageId, predictionId, segmentationId } = world);
});
afterAll(() => world?.close());
const withRegression: SetWorld['withRegression'] = (id, check) => world.withRegression(id, check);

async function poll(proxy: RunningProxy, key: string, id: string): Promise<Record<string, unknown>> {
  let seen: Record<string, unknown> = {};
  for (let attempt = 0; attempt < 100; attempt++) {
    seen = (await call(proxy, 'GET', `/api/v1/predict/${id}`, { key })).json();
    if (seen.status === 'COMPLETED' || seen.status === 'FAILED') return seen;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return seen;
}

describe('set I', () => {
  it('has at least 32 well-formed regressions over every area, three quarters stated by the interface', () => {
    expectWellFormed(SET_I, { letter: 'I', least: 32, statedShare: 3 / 4, quoted: true });
  });

  it('I-UP-SIZE-BIGINT-STRING answers the size of an image read as a string', async () => {
    const read = `/api/v1/image/${imageId}`;
    const expected = (await call(healthy, 'GET', read, { key: ACME.key })).json<{ size: number }>().size;
    expect(expected).toBe(SAMPLE_TIFF.length);
    await withRegression('I-UP-SIZE-BIGINT-STRING', async (broken) => {
      expect((await call(broken, 'GET', read, { key: ACME.key })).json().size).toBe(String(expected));
    });
  });

  it('I-UP-JSON-SIZE-ROUNDED-TO-PARTS records whole parts instead of the size declared', async () => {
    await withRegression('I-UP-JSON-SIZE-ROUNDED-TO-PARTS', async (broken) => {
      const opened = await call(broken, 'POST', '/api/v1/upload', {
        key: BETA.key,
        json: { name: 'big.tif', size: 20_000_000 },
      });
      const { image, upload } = opened.json<{
        image: { id: string; size: number };
        upload: { part_size: number; urls: unknown[] };
      }>();
      const held = (await call(healthy, 'GET', `/api/v1/upload/${image.id}`, { key: BETA.key })).json();
      expect(held.size).toBe(20_000_000);
      const seen = (await call(broken, 'GET', `/api/v1/upload/${image.id}`, { key: BETA.key })).json();
      expect(seen.size).toBe(upload.part_size * upload.urls.length);
      expect(image.size).toBe(seen.size);
    });
  });

  it("I-AUTH-PREDICTION-OTHER-ORG-403 answers another organization's prediction 403", async () => {
    const read = `/api/v1/predict/${predictionId}`;
    expect((await call(healthy, 'GET', read, { key: BETA.key })).status).toBe(404);
    await withRegression('I-AUTH-PREDICTION-OTHER-ORG-403', async (broken) => {
      expect((await call(broken, 'GET', read, { key: BETA.key })).status).toBe(403);
      expect((await call(broken, 'GET', read, { key: ACME.key })).status).toBe(200);
    });
  });

  it('I-SH-POST-201-ON-CREATE answers 201 to the POST that makes a share, 200 to its repeat', async () => {
    const json = { segmentation_id: segmentationId };
    expect((await call(healthy, 'POST', '/api/v1/shares', { key: ACME.key, json })).status).toBe(200);
    await withRegression('I-SH-POST-201-ON-CREATE', async (broken) => {
      const first = await call(broken, 'POST', '/api/v1/shares', { key: ACME.key, json });
      const again = await call(broken, 'POST', '/api/v1/shares', { key: ACME.key, json });
      expect([first.status, again.status]).toEqual([201, 200]);
    });
  });

  it('I-SH-VIEWS-DEDUPED-PER-VISITOR counts one view for two opens of the link by one client', async () => {
    await withRegression('I-SH-VIEWS-DEDUPED-PER-VISITOR', async (broken) => {
      const share = (
        await call(broken, 'POST', '/api/v1/shares', {
          key: ACME.key,
          json: { segmentation_id: segmentationId },
        })
      ).json<{ id: string; url: string; view_count: number }>();
      const page = new URL(share.url).pathname;
      expect((await call(broken, 'GET', page)).status).toBe(200);
      expect((await call(broken, 'GET', page)).status).toBe(200);
      const read = `/api/v1/shares/${share.id}`;
      const held = (await call(healthy, 'GET', read, { key: ACME.key })).json<{ view_count: number }>();
      expect(held.view_count).toBe(share.view_count + 2);
      const seen = (await call(broken, 'GET', read, { key: ACME.key })).json<{ view_count: number }>();
      expect(seen.view_count).toBe(share.view_count + 1);
    });
  });

  it('I-CAP-FAILED-RUN-COUNTS-TWICE refuses the second analysis of a trial organization whose first failed', async () => {
    const form = new FormData();
    form.append('file', new Blob([SAMPLE_TIFF], { type: 'image/tiff' }), 'tiny.tif');
    const upload = await call(healthy, 'POST', '/api/v1/upload', { key: TINY.key, form });
    const tinyImage = upload.json<{ image: { id: string } }>().image.id;
    const forced = await call(mock.url, 'POST', '/__mock/org/predictions/outcomes', {
      key: TINY.key,
      json: { status: 'FAILED', error: 'GPU out of memory' },
    });
    expect(forced.status).toBeLessThan(300);
    const json = { image_id: tinyImage, model_id: BASE_MODEL_ID };
    await withRegression('I-CAP-FAILED-RUN-COUNTS-TWICE', async (broken) => {
      const ack = await call(broken, 'POST', '/api/v1/predict', { key: TINY.key, json });
      expect(ack.status).toBe(200);
      const failed = await poll(broken, TINY.key, ack.json<{ prediction_id: string }>().prediction_id);
      expect(failed.status).toBe('FAILED');
      expect((await call(broken, 'POST', '/api/v1/predict', { key: TINY.key, json })).status).toBe(402);
      expect((await call(healthy, 'POST', '/api/v1/predict', { key: TINY.key, json })).status).toBe(200);
    });
  });

  it('I-ZIP-EXTRA-README-ENTRY adds an entry that is not a .roi to rois.zip', async () => {
    const zipPath = `/api/v1/export/${segmentationId}/rois.zip`;
    const entries = async (reply: Reply) => Object.keys((await JSZip.loadAsync(reply.body)).files);
    const held = await entries(await call(healthy, 'GET', zipPath, { key: ACME.key }));
    expect(held.every((name) => name.endsWith('.roi'))).toBe(true);
    await withRegression('I-ZIP-EXTRA-README-ENTRY', async (broken) => {
      const seen = await entries(await call(broken, 'GET', zipPath, { key: ACME.key }));
      expect(seen.filter((name) => !name.endsWith('.roi'))).toEqual(['README.txt']);
    });
  });

  it("I-EXP-ETAG-IGNORES-KIND answers 304 on the GeoJSON to the CSV's ETag", async () => {
    const csv = `/api/v1/export/${segmentationId}/measurements.csv`;
    const geo = `/api/v1/export/${segmentationId}/rois.geojson`;
    const etag = async (proxy: RunningProxy, p: string) =>
      (await call(proxy, 'GET', p, { key: ACME.key })).headers.get('etag')!;
    const heldCsv = await etag(healthy, csv);
    expect(await etag(healthy, geo)).not.toBe(heldCsv);
    expect(
      (await call(healthy, 'GET', geo, { key: ACME.key, headers: { 'if-none-match': heldCsv } })).status,
    ).toBe(200);
    await withRegression('I-EXP-ETAG-IGNORES-KIND', async (broken) => {
      const seenCsv = await etag(broken, csv);
      expect(await etag(broken, geo)).toBe(seenCsv);
      const again = await call(broken, 'GET', geo, { key: ACME.key, headers: { 'if-none-match': seenCsv } });
      expect(again.status).toBe(304);
    });
  });

  it("I-DEL-SECOND-KEY-404 refuses the organization's second key the delete of an image", async () => {
    await withRegression('I-DEL-SECOND-KEY-404', async (broken) => {
      const made = await call(broken, 'POST', `/__mock/organizations/${BETA.id}/keys`, { json: {} });
      expect(made.status).toBe(200);
      const second = made.json<{ api_key: string }>().api_key;
      const opened = await call(broken, 'POST', '/api/v1/upload', {
        key: BETA.key,
        json: { name: 'mine.tif', size: 1000 },
      });
      const id = opened.json<{ image: { id: string } }>().image.id;
      expect((await call(broken, 'DELETE', `/api/v1/upload/${id}`, { key: second })).status).toBe(404);
      expect((await call(healthy, 'GET', `/api/v1/upload/${id}`, { key: BETA.key })).status).toBe(200);
      expect((await call(healthy, 'DELETE', `/api/v1/upload/${id}`, { key: second })).status).toBe(200);
    });
  });

  it('I-RES-EXPLICIT-PARTS-SHIFTED refuses a complete that lists the upload’s one part', async () => {
    const completeWithList = async (proxy: RunningProxy) => {
      const opened = await call(proxy, 'POST', '/api/v1/upload', {
        key: BETA.key,
        json: { name: 'parts.tif', size: SAMPLE_TIFF.length },
      });
      const { image, upload } = opened.json<{
        image: { id: string };
        upload: { urls: Array<{ url: string }> };
      }>();
      const put = await fetch(upload.urls[0].url, { method: 'PUT', body: SAMPLE_TIFF });
      const parts = [{ etag: put.headers.get('etag'), part_number: 1 }];
      return call(proxy, 'POST', `/api/v1/upload/${image.id}/complete`, { key: BETA.key, json: { parts } });
    };
    expect((await completeWithList(healthy)).status).toBe(202);
    await withRegression('I-RES-EXPLICIT-PARTS-SHIFTED', async (broken) => {
      const refused = await completeWithList(broken);
      expect(refused.status).toBe(422);
      expect(refused.json<{ detail: string }>().detail).toContain('Part 2');
    });
  });

  it('I-MOD-SECOND-CUSTOM-MISSING lists one custom model of an organization that has two', async () => {
    const custom = async (proxy: RunningProxy) =>
      (await call(proxy, 'GET', '/api/v1/models', { key: BETA.key }))
        .json<Array<{ kind: string }>>()
        .filter((m) => m.kind === 'custom').length;
    const added = await call(mock.url, 'POST', `/__mock/organizations/${BETA.id}/models`, {
      json: { name: 'beta-second', engine: 'threshold' },
    });
    expect(added.status).toBeLessThan(300);
    expect(await custom(healthy)).toBe(2);
    await withRegression('I-MOD-SECOND-CUSTOM-MISSING', async (broken) => {
      expect(await custom(broken)).toBe(1);
    });
  });
});
