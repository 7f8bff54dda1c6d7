import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningProxy } from './regression-proxy.js';
import { seedOrganizations } from './regression.js';
import { SET_H } from './set-h/index.js';
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
 * Set H is effective: every regression is well formed, and a representative one of each kind of
 * bug (a field overwritten, a limit off by one, a CSV detail, a ROI encoding, a cache key, a state
 * kept across requests, a status swapped, an organization leak, a cap, a validator, a key) changes
 * an answer a client sees, against a real mock started here. The healthy answer is read through a
 * no-op proxy in front of the same mock.
 */

const [ACME, BETA, TINY] = seedOrganizations();

let world: SetWorld;
let healthy: RunningProxy;
let imageId = '';
let segmentationId = '';

beforeAll(async () => {
  world = await startSetWorld(SET_H);
  ({ healthy, imageId, segmentationId } = world);
});
afterAll(() => world?.close());
const withRegression: SetWorld['withRegression'] = (id, check) => world.withRegression(id, check);

const csvRows = (reply: Reply) =>
  reply.body
    .toString('utf8')
    .trimEnd()
    .split(/\r?\n/)
    .map((line) => line.split(','));

describe('set H', () => {
  it('has at least 30 well-formed regressions over every area, three quarters stated by the interface', () => {
    expectWellFormed(SET_H, { letter: 'H', least: 30, statedShare: 3 / 4, quoted: true });
  });

  it('H-UP-SIZE-IS-PIXELS reports a ready image size as its pixel count, not its bytes', async () => {
    const read = (proxy: RunningProxy) =>
      call(proxy, 'GET', `/api/v1/upload/${imageId}`, { key: ACME.key }).then((r) =>
        r.json<{ size: number; shape: number[] }>(),
      );
    const expected = await read(healthy);
    expect(expected.size).toBe(SAMPLE_TIFF.length);
    await withRegression('H-UP-SIZE-IS-PIXELS', async (broken) => {
      const seen = await read(broken);
      expect(seen.size).toBe(expected.shape.reduce((a, b) => a * b, 1));
      expect(seen.size).not.toBe(SAMPLE_TIFF.length);
    });
  });

  it('H-RES-PLAN-SHORT-ONE-BYTE-OVER gives one URL too few to a file one byte over a whole part', async () => {
    const open = (proxy: RunningProxy, size: number) =>
      call(proxy, 'POST', '/api/v1/upload', { key: BETA.key, json: { name: 'p.tif', size } }).then((r) =>
        r.json<{ upload: { part_size: number; urls: unknown[] } }>(),
      );
    const plan = await open(healthy, 1000);
    const size = plan.upload.part_size + 1;
    expect((await open(healthy, size)).upload.urls).toHaveLength(2);
    await withRegression('H-RES-PLAN-SHORT-ONE-BYTE-OVER', async (broken) => {
      expect((await open(broken, size)).upload.urls).toHaveLength(1);
      expect((await open(broken, 2 * plan.upload.part_size)).upload.urls).toHaveLength(2);
    });
  });

  it('H-CSV-COLUMNS-VALUES-CANONICAL writes the values of a reordered selection in the canonical order', async () => {
    const csvPath = `/api/v1/export/${segmentationId}/measurements.csv?columns=area_px&columns=roi_id`;
    const expected = csvRows(await call(healthy, 'GET', csvPath, { key: ACME.key }));
    expect(expected[0]).toEqual(['area_px', 'roi_id']);
    await withRegression('H-CSV-COLUMNS-VALUES-CANONICAL', async (broken) => {
      const seen = csvRows(await call(broken, 'GET', csvPath, { key: ACME.key }));
      expect(seen[0]).toEqual(['area_px', 'roi_id']);
      expect(seen[1]).toEqual([expected[1][1], expected[1][0]]);
    });
  });

  it('H-ZIP-LAST-VERTEX-DROPPED writes each .roi with one vertex fewer', async () => {
    const zipPath = `/api/v1/export/${segmentationId}/rois.zip`;
    const firstRoi = async (reply: Reply) => {
      const zip = await JSZip.loadAsync(reply.body);
      const name = Object.keys(zip.files).find((n) => n.endsWith('.roi'))!;
      return Buffer.from(await zip.file(name)!.async('uint8array'));
    };
    const expected = await firstRoi(await call(healthy, 'GET', zipPath, { key: ACME.key }));
    const n = expected.readUInt16BE(16);
    await withRegression('H-ZIP-LAST-VERTEX-DROPPED', async (broken) => {
      const roi = await firstRoi(await call(broken, 'GET', zipPath, { key: ACME.key }));
      expect(roi.readUInt16BE(16)).toBe(n - 1);
      expect(roi.subarray(64, 64 + 2 * (n - 1))).toEqual(expected.subarray(64, 64 + 2 * (n - 1)));
    });
  });

  it('H-PNG-CACHE-IGNORES-COLOR answers the overlay of the first colour asked to another colour', async () => {
    const overlay = (color: string) => `/api/v1/export/${segmentationId}/overlay.png?outline_color=${color}`;
    const red = await call(healthy, 'GET', overlay('FF0000'), { key: ACME.key });
    const green = await call(healthy, 'GET', overlay('00FF00'), { key: ACME.key });
    expect(red.body.equals(green.body)).toBe(false);
    await withRegression('H-PNG-CACHE-IGNORES-COLOR', async (broken) => {
      await call(broken, 'GET', overlay('FF0000'), { key: ACME.key });
      const seen = await call(broken, 'GET', overlay('00FF00'), { key: ACME.key });
      expect(seen.body.equals(red.body)).toBe(true);
    });
  });

  it('H-EXP-ETAG-MOVES-ON-SHARE answers 200 to an ETag held before the segmentation was shared', async () => {
    const csvPath = `/api/v1/export/${segmentationId}/measurements.csv`;
    await withRegression('H-EXP-ETAG-MOVES-ON-SHARE', async (broken) => {
      const held = (await call(broken, 'GET', csvPath, { key: ACME.key })).headers.get('etag')!;
      await call(broken, 'POST', '/api/v1/shares', {
        key: ACME.key,
        json: { segmentation_id: segmentationId },
      });
      const conditional = { key: ACME.key, headers: { 'if-none-match': held } };
      expect((await call(healthy, 'GET', csvPath, conditional)).status).toBe(304);
      const again = await call(broken, 'GET', csvPath, conditional);
      expect(again.status).toBe(200);
      expect(again.headers.get('etag')).not.toBe(held);
    });
  });

  it('H-SH-RESHARE-409 refuses a new share after a revoke', async () => {
    const body = { segmentation_id: segmentationId };
    await withRegression('H-SH-RESHARE-409', async (broken) => {
      const share = (await call(broken, 'POST', '/api/v1/shares', { key: ACME.key, json: body })).json<{
        id: string;
      }>();
      expect((await call(broken, 'DELETE', `/api/v1/shares/${share.id}`, { key: ACME.key })).status).toBe(
        200,
      );
      expect((await call(broken, 'POST', '/api/v1/shares', { key: ACME.key, json: body })).status).toBe(409);
      const renewed = await call(healthy, 'POST', '/api/v1/shares', { key: ACME.key, json: body });
      expect(renewed.status).toBe(200);
      expect(renewed.json<{ id: string }>().id).not.toBe(share.id);
    });
  });

  it("H-DEL-OTHER-ORG-403 confirms another organization's image with 403", async () => {
    const deletePath = `/api/v1/image/${imageId}`;
    expect((await call(healthy, 'DELETE', deletePath, { key: BETA.key })).status).toBe(404);
    await withRegression('H-DEL-OTHER-ORG-403', async (broken) => {
      expect((await call(broken, 'DELETE', deletePath, { key: BETA.key })).status).toBe(403);
    });
    expect((await call(healthy, 'GET', `/api/v1/image/${imageId}`, { key: ACME.key })).status).toBe(200);
  });

  it('H-CAP-DELETE-UPLOADING-FREES-TWO stores one image past the cap after deleting an upload in progress', async () => {
    const open = (proxy: RunningProxy, name: string) =>
      call(proxy, 'POST', '/api/v1/upload', { key: TINY.key, json: { name, size: 1000 } });
    await withRegression('H-CAP-DELETE-UPLOADING-FREES-TWO', async (broken) => {
      const first = (await open(broken, 'one.tif')).json<{ image: { id: string } }>().image.id;
      expect((await open(broken, 'two.tif')).status).toBe(200);
      expect((await open(broken, 'three.tif')).status).toBe(402);
      expect((await call(broken, 'DELETE', `/api/v1/upload/${first}`, { key: TINY.key })).status).toBe(200);
      expect((await open(broken, 'three.tif')).status).toBe(200);
      expect((await open(healthy, 'four.tif')).status).toBe(402);
      expect((await open(broken, 'four.tif')).status).toBe(200);
    });
  });

  it('H-AUTH-NEW-KEY-REVOKES-OLD refuses the older key once a second one is created', async () => {
    await withRegression('H-AUTH-NEW-KEY-REVOKES-OLD', async (broken) => {
      const created = await call(broken, 'POST', `/__mock/organizations/${BETA.id}/keys`);
      const added = created.json<{ api_key: string }>().api_key;
      expect((await call(healthy, 'GET', '/api/v1/models', { key: BETA.key })).status).toBe(200);
      expect((await call(broken, 'GET', '/api/v1/models', { key: BETA.key })).status).toBe(401);
      expect((await call(broken, 'GET', '/api/v1/models', { key: added })).status).toBe(200);
    });
  });

  it('H-PRED-FAILED-READ-AS-SUBMITTED reads a FAILED run as SUBMITTED', async () => {
    const form = new FormData();
    form.append('file', new Blob([SAMPLE_TIFF], { type: 'image/tiff' }), 'beta.tif');
    const beta = (await call(healthy, 'POST', '/api/v1/upload', { key: BETA.key, form })).json<{
      image: { id: string };
    }>().image;
    const forced = await call(healthy, 'POST', '/__mock/org/predictions/outcomes', {
      key: BETA.key,
      json: { status: 'FAILED', error: 'GPU out of memory' },
    });
    expect(forced.status).toBeLessThan(300);
    const ack = await call(healthy, 'POST', '/api/v1/predict', {
      key: BETA.key,
      json: { image_id: beta.id, model_id: BASE_MODEL_ID },
    });
    const predictionPath = `/api/v1/predict/${ack.json<{ prediction_id: string }>().prediction_id}`;
    let failed: Record<string, unknown> = {};
    for (let attempt = 0; attempt < 100 && failed.status !== 'FAILED'; attempt++) {
      failed = (await call(healthy, 'GET', predictionPath, { key: BETA.key })).json();
      if (failed.status !== 'FAILED') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(failed.status).toBe('FAILED');
    await withRegression('H-PRED-FAILED-READ-AS-SUBMITTED', async (broken) => {
      const seen = (await call(broken, 'GET', predictionPath, { key: BETA.key })).json();
      expect(seen.status).toBe('SUBMITTED');
      expect(seen).not.toHaveProperty('error');
    });
  });
});
