import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedMock } from './launch-mock.js';
import type { RunningProxy } from './regression-proxy.js';
import { seedOrganizations } from './regression.js';
import { SET_G } from './set-g/index.js';
import {
  BASE_MODEL_ID,
  call,
  expectWellFormed,
  SAMPLE_TIFF,
  startSetWorld,
  uploadedParts,
  type Reply,
  type SetWorld,
} from './set-test-kit.js';

/**
 * Set G is effective: every regression is well formed, and a representative one of each kind of
 * bug (a state kept across requests, a unit, a limit off by one, an organization leak, a key
 * handled wrong, an export's format, a cap's counter, a cascade, a duplicate check, a share's
 * counters) changes an answer a client sees, against a real mock started here. The healthy answer
 * is read through a no-op proxy in front of the same mock.
 */

const [ACME, BETA, TINY] = seedOrganizations();

let world: SetWorld;
let mock: LaunchedMock;
let healthy: RunningProxy;
let imageId = '';
let segmentationId = '';

beforeAll(async () => {
  world = await startSetWorld(SET_G);
  ({ mock, healthy, imageId, segmentationId } = world);
});
afterAll(() => world?.close());
const withRegression: SetWorld['withRegression'] = (id, check) => world.withRegression(id, check);

async function control(method: string, controlPath: string, body: unknown): Promise<void> {
  const answer = await fetch(`${mock.url}${controlPath}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(answer.status, controlPath).toBeLessThan(300);
}

describe('set G', () => {
  it('has at least 36 well-formed regressions over every area, three quarters stated by the interface and quoted', () => {
    expectWellFormed(SET_G, { letter: 'G', least: 36, statedShare: 3 / 4, quoted: true });
  });

  it('G-AUTH-INVALID-KEY-LAST-PRINCIPAL serves an unknown key as the last organization that authenticated', async () => {
    expect((await call(healthy, 'GET', '/api/v1/models', { key: 'sk_test_unknown_0000' })).status).toBe(401);
    await withRegression('G-AUTH-INVALID-KEY-LAST-PRINCIPAL', async (broken) => {
      expect((await call(broken, 'GET', '/api/v1/models', { key: 'sk_test_unknown_0000' })).status).toBe(401);
      expect((await call(broken, 'GET', '/api/v1/models', { key: BETA.key })).status).toBe(200);
      const reply = await call(broken, 'GET', '/api/v1/models', { key: 'sk_test_unknown_0000' });
      expect(reply.status).toBe(200);
      expect(reply.json<Array<{ id: string }>>().map((m) => m.id)).toContain(BETA.customModelIds[0]);
    });
  });

  it("G-AUTH-REVOKE-OTHER-ORG-403 answers another organization's share 403 where the mock says 404", async () => {
    const share = (
      await call(healthy, 'POST', '/api/v1/shares', {
        key: ACME.key,
        json: { segmentation_id: segmentationId },
      })
    ).json<{ id: string }>();
    const revoke = `/api/v1/shares/${share.id}`;
    expect((await call(healthy, 'DELETE', revoke, { key: BETA.key })).status).toBe(404);
    await withRegression('G-AUTH-REVOKE-OTHER-ORG-403', async (broken) => {
      expect((await call(broken, 'DELETE', revoke, { key: BETA.key })).status).toBe(403);
    });
    const read = await call(healthy, 'GET', revoke, { key: ACME.key });
    expect(read.json().revoked_at).toBeNull();
  });

  it('G-UP-4GB-EXACT-REFUSED refuses a file of exactly 4 GiB, the stated maximum', async () => {
    const body = { name: 'four.tif', size: 4 * 1024 ** 3 };
    expect((await call(healthy, 'POST', '/api/v1/upload', { key: ACME.key, json: body })).status).toBe(200);
    await withRegression('G-UP-4GB-EXACT-REFUSED', async (broken) => {
      expect((await call(broken, 'POST', '/api/v1/upload', { key: ACME.key, json: body })).status).toBe(422);
      const under = { name: 'under.tif', size: 4 * 1024 ** 3 - 1 };
      expect((await call(broken, 'POST', '/api/v1/upload', { key: ACME.key, json: under })).status).toBe(200);
    });
  });

  it('G-RES-FIRST-POLL-UPLOADING reads the image uploading at the first poll after complete', async () => {
    await withRegression('G-RES-FIRST-POLL-UPLOADING', async (broken) => {
      const id = await uploadedParts(broken, ACME.key);
      expect((await call(broken, 'POST', `/api/v1/upload/${id}/complete`, { key: ACME.key })).status).toBe(
        202,
      );
      const status = async (proxy: RunningProxy) =>
        (await call(proxy, 'GET', `/api/v1/upload/${id}`, { key: ACME.key })).json<{
          upload_status: string;
        }>().upload_status;
      expect(await status(healthy)).not.toBe('uploading');
      expect(await status(broken)).toBe('uploading');
      expect(await status(broken)).not.toBe('uploading');
    });
  });

  it('G-MOD-LIST-DRAINED-CACHE answers an empty model list from the second read on', async () => {
    const count = async (proxy: RunningProxy) =>
      (await call(proxy, 'GET', '/api/v1/models', { key: ACME.key })).json<unknown[]>().length;
    expect(await count(healthy)).toBe(await count(healthy));
    await withRegression('G-MOD-LIST-DRAINED-CACHE', async (broken) => {
      expect(await count(broken)).toBeGreaterThan(0);
      expect(await count(broken)).toBe(0);
    });
  });

  it('G-PRED-DUPLICATE-CASE-SENSITIVE queues a second run for the same ids in upper case', async () => {
    await control('PUT', '/__mock/predictions/progress', { organization_id: BETA.id, run_delay_ms: 60_000 });
    try {
      const form = new FormData();
      form.append('file', new Blob([SAMPLE_TIFF], { type: 'image/tiff' }), 'beta.tif');
      const image = (await call(healthy, 'POST', '/api/v1/upload', { key: BETA.key, form })).json<{
        image: { id: string };
      }>().image.id;
      const upper = { image_id: image.toUpperCase(), model_id: BASE_MODEL_ID.toUpperCase() };
      const first = (
        await call(healthy, 'POST', '/api/v1/predict', {
          key: BETA.key,
          json: { image_id: image, model_id: BASE_MODEL_ID },
        })
      ).json<{ prediction_id: string; status: string }>();
      expect(first.status).toBe('submitted');
      expect(
        (await call(healthy, 'POST', '/api/v1/predict', { key: BETA.key, json: upper })).json(),
      ).toMatchObject({
        status: 'skipped',
        prediction_id: first.prediction_id,
      });
      await withRegression('G-PRED-DUPLICATE-CASE-SENSITIVE', async (broken) => {
        const again = (await call(broken, 'POST', '/api/v1/predict', { key: BETA.key, json: upper })).json<{
          prediction_id: string;
          status: string;
        }>();
        expect(again.status).toBe('submitted');
        expect(again.prediction_id).not.toBe(first.prediction_id);
        const poll = await call(broken, 'GET', `/api/v1/predict/${again.prediction_id}`, { key: BETA.key });
        expect(poll.status).toBe(200);
      });
    } finally {
      await control('PUT', '/__mock/predictions/progress', { organization_id: BETA.id });
    }
  });

  it('G-CAP-REFUSED-UPLOAD-KEEPS-SLOT still refuses an upload after a delete freed a slot', async () => {
    const open = (proxy: RunningProxy, name: string) =>
      call(proxy, 'POST', '/api/v1/upload', { key: TINY.key, json: { name, size: 1000 } });
    await control('POST', '/__mock/reset', { organization_id: TINY.id });
    try {
      await withRegression('G-CAP-REFUSED-UPLOAD-KEEPS-SLOT', async (broken) => {
        const first = (await open(broken, 'one.tif')).json<{ image: { id: string } }>().image.id;
        expect((await open(broken, 'two.tif')).status).toBe(200);
        expect((await open(broken, 'three.tif')).status).toBe(402);
        expect((await call(broken, 'DELETE', `/api/v1/image/${first}`, { key: TINY.key })).status).toBe(200);
        expect((await open(broken, 'four.tif')).status).toBe(402);
        expect((await open(healthy, 'five.tif')).status).toBe(200);
      });
    } finally {
      await control('POST', '/__mock/reset', { organization_id: TINY.id });
    }
  });

  it('G-CSV-CONFLUENCY-FRACTION writes confluency as a fraction where the mock writes a percent', async () => {
    const csvPath = `/api/v1/export/${segmentationId}/measurements.csv?columns=roi_index&columns=confluency`;
    const confluency = (reply: Reply) => Number(reply.body.toString('utf8').split(/\r?\n/)[1].split(',')[1]);
    const percent = confluency(await call(healthy, 'GET', csvPath, { key: ACME.key }));
    expect(percent).toBeGreaterThan(1);
    await withRegression('G-CSV-CONFLUENCY-FRACTION', async (broken) => {
      expect(confluency(await call(broken, 'GET', csvPath, { key: ACME.key }))).toBeCloseTo(percent / 100, 5);
    });
  });

  it('G-GEO-RINGS-CLOCKWISE and G-ZIP-ROI-CLOSING-VERTEX change the outlines of the GeoJSON and the ROI zip', async () => {
    const geoPath = `/api/v1/export/${segmentationId}/rois.geojson`;
    type Collection = { features: Array<{ geometry: { coordinates: number[][][] } }> };
    const signedArea = (reply: Reply) => {
      const ring = reply.json<Collection>().features[0].geometry.coordinates[0];
      return (
        ring.slice(0, -1).reduce((sum, [x, y], i) => sum + x * ring[i + 1][1] - ring[i + 1][0] * y, 0) / 2
      );
    };
    expect(signedArea(await call(healthy, 'GET', geoPath, { key: ACME.key }))).toBeGreaterThan(0);
    await withRegression('G-GEO-RINGS-CLOCKWISE', async (broken) => {
      expect(signedArea(await call(broken, 'GET', geoPath, { key: ACME.key }))).toBeLessThan(0);
    });
    const zipPath = `/api/v1/export/${segmentationId}/rois.zip`;
    const firstRoi = async (reply: Reply) => {
      const zip = await JSZip.loadAsync(reply.body);
      const name = Object.keys(zip.files)
        .filter((n) => n.endsWith('.roi'))
        .sort()[0];
      return Buffer.from(await zip.file(name)!.async('uint8array'));
    };
    const expected = await firstRoi(await call(healthy, 'GET', zipPath, { key: ACME.key }));
    const n = expected.readUInt16BE(16);
    await withRegression('G-ZIP-ROI-CLOSING-VERTEX', async (broken) => {
      const roi = await firstRoi(await call(broken, 'GET', zipPath, { key: ACME.key }));
      expect(roi.readUInt16BE(16)).toBe(n + 1);
      expect(roi.readUInt16BE(64 + 2 * n)).toBe(roi.readUInt16BE(64));
      expect(roi.length).toBe(expected.length + 4);
    });
  });

  it("G-SH-RESHARE-INHERITS-VIEWS starts the new link with the revoked one's views", async () => {
    await withRegression('G-SH-RESHARE-INHERITS-VIEWS', async (broken) => {
      const body = { segmentation_id: segmentationId };
      const live = (await call(broken, 'POST', '/api/v1/shares', { key: ACME.key, json: body })).json<{
        id: string;
        url: string;
      }>();
      expect((await call(broken, 'GET', new URL(live.url).pathname)).status).toBe(200);
      expect((await call(broken, 'DELETE', `/api/v1/shares/${live.id}`, { key: ACME.key })).status).toBe(200);
      const fresh = (await call(broken, 'POST', '/api/v1/shares', { key: ACME.key, json: body })).json<{
        id: string;
        view_count: number;
      }>();
      expect(fresh.id).not.toBe(live.id);
      expect(fresh.view_count).toBeGreaterThan(0);
      const truth = (await call(healthy, 'GET', `/api/v1/shares/${fresh.id}`, { key: ACME.key })).json();
      expect(truth.view_count).toBe(0);
    });
  });

  it("G-DEL-ABORTS-ALL-ORG-UPLOADS fails the organization's other uploads when one image is deleted", async () => {
    await withRegression('G-DEL-ABORTS-ALL-ORG-UPLOADS', async (broken) => {
      const open = async (name: string) =>
        (await call(broken, 'POST', '/api/v1/upload', { key: BETA.key, json: { name, size: 100 } })).json<{
          image: { id: string };
        }>().image.id;
      const deleted = await open('gone.tif');
      const other = await open('other.tif');
      expect((await call(broken, 'DELETE', `/api/v1/upload/${deleted}`, { key: BETA.key })).status).toBe(200);
      const read = await call(healthy, 'GET', `/api/v1/upload/${other}`, { key: BETA.key });
      expect(read.json().upload_status).toBe('failed');
    });
  });

  it('G-DEL-UPPERCASE-ID-NOOP answers success to a delete in upper case and keeps the image', async () => {
    await withRegression('G-DEL-UPPERCASE-ID-NOOP', async (broken) => {
      const reply = await call(broken, 'DELETE', `/api/v1/image/${imageId.toUpperCase()}`, { key: ACME.key });
      expect(reply.json()).toEqual({ success: true });
      expect((await call(healthy, 'GET', `/api/v1/image/${imageId}`, { key: ACME.key })).status).toBe(200);
    });
  });
});
