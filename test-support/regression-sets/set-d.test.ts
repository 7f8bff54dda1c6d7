import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedMock } from './launch-mock.js';
import type { RunningProxy } from './regression-proxy.js';
import { seedOrganizations } from './regression.js';
import { SET_D } from './set-d/index.js';
import {
  BASE_MODEL_ID,
  SAMPLE_TIFF,
  call,
  startSetWorld,
  uploadedParts,
  type Reply,
  type SetWorld,
  expectWellFormed,
} from './set-test-kit.js';

/**
 * Set D is effective: every regression is well formed, and a representative one of each kind of
 * bug (a field's type, a fencepost, a filter lost, a state kept too long, an organization leak, a
 * status swapped, an export detail of CSV, GeoJSON, ROI zip and PNG, a share after revoke, a part
 * URL after abort, a delete cascading too far, a cap off by one) changes an answer a client sees,
 * against a real mock started here. The healthy answer is read through a no-op proxy in front of
 * the same mock.
 */

const [ACME, BETA, TINY] = seedOrganizations();
const SPLIT_MODEL_ID = '506b80e4-1192-4640-aa2c-a72de23b4289';

let world: SetWorld;
let mock: LaunchedMock;
let healthy: RunningProxy;
let imageId = '';
let predictionId = '';
let segmentationId = '';
let cellCount = 0;

beforeAll(async () => {
  world = await startSetWorld(SET_D);
  ({ mock, healthy, imageId, predictionId, segmentationId, cellCount } = world);
});
afterAll(() => world?.close());
const withRegression: SetWorld['withRegression'] = (id, check) => world.withRegression(id, check);

/** A completed segmentation of the sample for ACME, made through the healthy proxy. */
async function segmented(): Promise<{ imageId: string; segmentationId: string }> {
  const form = new FormData();
  form.append('file', new Blob([SAMPLE_TIFF], { type: 'image/tiff' }), 'more.tif');
  const image = (await call(healthy, 'POST', '/api/v1/upload', { key: ACME.key, form })).json<{
    image: { id: string };
  }>().image.id;
  const ack = await call(healthy, 'POST', '/api/v1/predict', {
    key: ACME.key,
    json: { image_id: image, model_id: BASE_MODEL_ID },
  });
  const id = ack.json<{ prediction_id: string }>().prediction_id;
  for (let attempt = 0; attempt < 100; attempt++) {
    const p = (await call(healthy, 'GET', `/api/v1/predict/${id}`, { key: ACME.key })).json<{
      status: string;
      segmentation_id?: string;
    }>();
    if (p.status === 'COMPLETED') return { imageId: image, segmentationId: p.segmentation_id! };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the prediction did not complete');
}

describe('set D', () => {
  it('has at least 35 well-formed regressions over every area, about three quarters stated by the interface', () => {
    expectWellFormed(SET_D, { letter: 'D', least: 35, statedShare: 0.7 });
  });

  it('D-PRED-CELL-COUNT-STRING answers cell_count as a string', async () => {
    const p = `/api/v1/predict/${predictionId}`;
    expect((await call(healthy, 'GET', p, { key: ACME.key })).json().cell_count).toBe(cellCount);
    await withRegression('D-PRED-CELL-COUNT-STRING', async (broken) => {
      expect((await call(broken, 'GET', p, { key: ACME.key })).json().cell_count).toBe(String(cellCount));
    });
  });

  it('D-PRED-STATUS-CACHED keeps answering the first status read of a run', async () => {
    await withRegression('D-PRED-STATUS-CACHED', async (broken) => {
      const ack = await call(broken, 'POST', '/api/v1/predict', {
        key: ACME.key,
        json: { image_id: imageId, model_id: SPLIT_MODEL_ID },
      });
      const p = `/api/v1/predict/${ack.json<{ prediction_id: string }>().prediction_id}`;
      const first = (await call(broken, 'GET', p, { key: ACME.key })).json().status;
      let now = '';
      for (let attempt = 0; attempt < 100 && now !== 'COMPLETED'; attempt++) {
        now = (await call(healthy, 'GET', p, { key: ACME.key })).json<{ status: string }>().status;
        if (now !== 'COMPLETED') await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(now).toBe('COMPLETED');
      expect((await call(broken, 'GET', p, { key: ACME.key })).json().status).toBe(first);
      expect(first).not.toBe('COMPLETED');
    });
  });

  it("D-UP-READ-OTHER-ORG answers another organization's image", async () => {
    const p = `/api/v1/image/${imageId}`;
    expect((await call(healthy, 'GET', p, { key: BETA.key })).status).toBe(404);
    await withRegression('D-UP-READ-OTHER-ORG', async (broken) => {
      const reply = await call(broken, 'GET', p, { key: BETA.key });
      expect(reply.status).toBe(200);
      expect(reply.json().id).toBe(imageId);
    });
  });

  it('D-AUTH-EXPORT-401-AS-404 answers an export without a valid key 404', async () => {
    const p = `/api/v1/export/${segmentationId}/measurements.csv`;
    expect((await call(healthy, 'GET', p, { key: 'sk_test_nobody' })).status).toBe(401);
    await withRegression('D-AUTH-EXPORT-401-AS-404', async (broken) => {
      expect((await call(broken, 'GET', p, { key: 'sk_test_nobody' })).status).toBe(404);
    });
  });

  it('D-MOD-NO-CUSTOM-NO-BASE lists nothing to an organization without custom models', async () => {
    const ids = (reply: Reply) => reply.json<Array<{ id: string }>>().map((m) => m.id);
    expect(ids(await call(healthy, 'GET', '/api/v1/models', { key: TINY.key }))).toContain(BASE_MODEL_ID);
    await withRegression('D-MOD-NO-CUSTOM-NO-BASE', async (broken) => {
      expect(ids(await call(broken, 'GET', '/api/v1/models', { key: TINY.key }))).toEqual([]);
      expect(ids(await call(broken, 'GET', '/api/v1/models', { key: ACME.key }))).toContain(BASE_MODEL_ID);
    });
  });

  it('D-CSV-CENTROID-SWAPPED swaps centroid_x and centroid_y', async () => {
    const p = `/api/v1/export/${segmentationId}/measurements.csv?columns=centroid_x&columns=centroid_y`;
    const row = (reply: Reply) => reply.body.toString('utf8').split(/\r?\n/)[1].split(',');
    const [x, y] = row(await call(healthy, 'GET', p, { key: ACME.key }));
    expect(x).not.toBe(y);
    await withRegression('D-CSV-CENTROID-SWAPPED', async (broken) => {
      expect(row(await call(broken, 'GET', p, { key: ACME.key }))).toEqual([y, x]);
    });
  });

  it('D-GEO-Y-AXIS-UP mirrors every position top to bottom', async () => {
    const p = `/api/v1/export/${segmentationId}/rois.geojson`;
    type Collection = { features: Array<{ geometry: { coordinates: number[][][] } }> };
    const first = (reply: Reply) => reply.json<Collection>().features[0].geometry.coordinates[0][0];
    const [x, y] = first(await call(healthy, 'GET', p, { key: ACME.key }));
    await withRegression('D-GEO-Y-AXIS-UP', async (broken) => {
      // The sample is 256 pixels high.
      expect(first(await call(broken, 'GET', p, { key: ACME.key }))).toEqual([x, 256 - y]);
    });
  });

  it('D-ZIP-ROI-TYPE-RECT writes every ROI as a rectangle', async () => {
    const p = `/api/v1/export/${segmentationId}/rois.zip`;
    const types = async (reply: Reply) => {
      const zip = await JSZip.loadAsync(reply.body);
      const names = Object.keys(zip.files).filter((n) => n.endsWith('.roi'));
      return new Set(await Promise.all(names.map(async (n) => (await zip.file(n)!.async('uint8array'))[6])));
    };
    expect([...(await types(await call(healthy, 'GET', p, { key: ACME.key })))]).not.toContain(1);
    await withRegression('D-ZIP-ROI-TYPE-RECT', async (broken) => {
      expect([...(await types(await call(broken, 'GET', p, { key: ACME.key })))]).toEqual([1]);
    });
  });

  it('D-PNG-MAX-SIZE-FLOOR answers a scaled overlay one pixel short of max_size', async () => {
    const p = `/api/v1/export/${segmentationId}/overlay.png?max_size=100`;
    const longest = (reply: Reply) => Math.max(reply.body.readUInt32BE(16), reply.body.readUInt32BE(20));
    expect(longest(await call(healthy, 'GET', p, { key: ACME.key }))).toBe(100);
    await withRegression('D-PNG-MAX-SIZE-FLOOR', async (broken) => {
      expect(longest(await call(broken, 'GET', p, { key: ACME.key }))).toBe(99);
    });
  });

  it('D-SH-RESHARE-KEEPS-REVOKED-AT shows the new live share of a re-shared segmentation as revoked', async () => {
    const fresh = await segmented();
    await withRegression('D-SH-RESHARE-KEEPS-REVOKED-AT', async (broken) => {
      const body = { segmentation_id: fresh.segmentationId };
      const first = (await call(broken, 'POST', '/api/v1/shares', { key: ACME.key, json: body })).json<{
        id: string;
      }>();
      await call(broken, 'DELETE', `/api/v1/shares/${first.id}`, { key: ACME.key });
      const again = (await call(broken, 'POST', '/api/v1/shares', { key: ACME.key, json: body })).json<{
        id: string;
        revoked_at: string | null;
        url: string;
      }>();
      expect(again.id).not.toBe(first.id);
      expect(again.revoked_at).not.toBeNull();
      const healthyRead = (
        await call(healthy, 'GET', `/api/v1/shares/${again.id}`, { key: ACME.key })
      ).json();
      expect(healthyRead.revoked_at).toBeNull();
      expect((await call(healthy, 'GET', new URL(again.url).pathname)).status).toBe(200);
    });
  });

  it('D-RES-ABORT-PARTS-STILL-ACCEPTED takes a part PUT after the upload was aborted', async () => {
    await withRegression('D-RES-ABORT-PARTS-STILL-ACCEPTED', async (broken) => {
      for (const [proxy, expected] of [
        [healthy, 404],
        [broken, 200],
      ] as const) {
        const opened = await call(proxy, 'POST', '/api/v1/upload', {
          key: ACME.key,
          json: { name: 'gone.tif', size: SAMPLE_TIFF.length },
        });
        const { image, upload } = opened.json<{
          image: { id: string };
          upload: { urls: Array<{ url: string }> };
        }>();
        expect(
          (await call(proxy, 'POST', `/api/v1/upload/${image.id}/abort`, { key: ACME.key })).status,
        ).toBe(200);
        expect((await fetch(upload.urls[0].url, { method: 'PUT', body: SAMPLE_TIFF })).status).toBe(expected);
      }
    });
  });

  it('D-RES-COMPLETE-NO-BODY-422 refuses a complete with no body', async () => {
    await withRegression('D-RES-COMPLETE-NO-BODY-422', async (broken) => {
      const refused = await uploadedParts(healthy, ACME.key);
      expect(
        (await call(broken, 'POST', `/api/v1/upload/${refused}/complete`, { key: ACME.key })).status,
      ).toBe(422);
      expect(
        (await call(healthy, 'POST', `/api/v1/upload/${refused}/complete`, { key: ACME.key })).status,
      ).toBe(202);
    });
  });

  it("D-DEL-REVOKES-ALL-ORG-SHARES turns off another image's share when one image is deleted", async () => {
    const kept = await segmented();
    const deleted = await segmented();
    await withRegression('D-DEL-REVOKES-ALL-ORG-SHARES', async (broken) => {
      const share = (
        await call(broken, 'POST', '/api/v1/shares', {
          key: ACME.key,
          json: { segmentation_id: kept.segmentationId },
        })
      ).json<{ id: string; url: string }>();
      await call(broken, 'POST', '/api/v1/shares', {
        key: ACME.key,
        json: { segmentation_id: deleted.segmentationId },
      });
      expect((await call(healthy, 'GET', new URL(share.url).pathname)).status).toBe(200);
      expect(
        (await call(broken, 'DELETE', `/api/v1/image/${deleted.imageId}`, { key: ACME.key })).status,
      ).toBe(200);
      expect((await call(healthy, 'GET', new URL(share.url).pathname)).status).toBe(404);
    });
  });

  it("D-CAP-ANALYSIS-LAST-REFUSED refuses the plan's last analysis of the month", async () => {
    const form = new FormData();
    form.append('file', new Blob([SAMPLE_TIFF], { type: 'image/tiff' }), 'tiny.tif');
    const upload = await call(healthy, 'POST', '/api/v1/upload', { key: TINY.key, form });
    expect(upload.status).toBe(200);
    const tinyImage = upload.json<{ image: { id: string } }>().image.id;
    const used = await fetch(`${mock.url}/__mock/organizations/${TINY.id}/usage`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ analyses_this_month: 1 }),
    });
    expect(used.status).toBe(200);
    const predict = (proxy: RunningProxy) =>
      call(proxy, 'POST', '/api/v1/predict', {
        key: TINY.key,
        json: { image_id: tinyImage, model_id: BASE_MODEL_ID },
      });
    await withRegression('D-CAP-ANALYSIS-LAST-REFUSED', async (broken) => {
      expect((await predict(broken)).status).toBe(402);
      expect((await predict(healthy)).status).toBe(200);
    });
  });
});
