import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedMock } from './launch-mock.js';
import type { RunningProxy } from './regression-proxy.js';
import { seedOrganizations } from './regression.js';
import { SET_B } from './set-b/index.js';
import {
  BASE_MODEL_ID,
  call,
  startSetWorld,
  uploadedParts,
  type Reply,
  type SetWorld,
  expectWellFormed,
} from './set-test-kit.js';

/**
 * Set B is effective: every regression is well formed, and a representative one of each kind of
 * bug (a field, a unit, a filter lost, a cache never purged, a state kept across requests, an
 * organization leak, a cap) changes an answer a client sees, against a real mock started here. The
 * healthy answer is read through a no-op proxy in front of the same mock.
 */

const [ACME, BETA, TINY] = seedOrganizations();

let world: SetWorld;
let mock: LaunchedMock;
let healthy: RunningProxy;
let imageId = '';
let predictionId = '';
let segmentationId = '';
let cellCount = 0;

beforeAll(async () => {
  world = await startSetWorld(SET_B);
  ({ mock, healthy, imageId, predictionId, segmentationId, cellCount } = world);
});
afterAll(() => world?.close());
const withRegression: SetWorld['withRegression'] = (id, check) => world.withRegression(id, check);

describe('set B', () => {
  it('has at least 35 well-formed regressions over every area, two thirds stated by the interface', () => {
    expectWellFormed(SET_B, { letter: 'B', least: 35, statedShare: 2 / 3 });
  });

  it('B-UP-SIZE-KIB reports the image size in KiB where the mock says bytes', async () => {
    const expected = (await call(healthy, 'GET', `/api/v1/upload/${imageId}`, { key: ACME.key })).json<{
      size: number;
    }>();
    await withRegression('B-UP-SIZE-KIB', async (broken) => {
      const { size } = (await call(broken, 'GET', `/api/v1/upload/${imageId}`, { key: ACME.key })).json<{
        size: number;
      }>();
      expect(size).toBe(Math.ceil(expected.size / 1024));
      expect(size).not.toBe(expected.size);
    });
  });

  it('B-RES-PART-SIZE-MIB gives part_size in MiB in the plan of a resumable upload', async () => {
    const plan = (
      await call(healthy, 'POST', '/api/v1/upload', {
        key: BETA.key,
        json: { name: 'a.tif', size: 20_000_000 },
      })
    ).json<{
      upload: { part_size: number };
    }>();
    expect(plan.upload.part_size).toBeGreaterThan(1024 * 1024);
    await withRegression('B-RES-PART-SIZE-MIB', async (broken) => {
      const answer = await call(broken, 'POST', '/api/v1/upload', {
        key: BETA.key,
        json: { name: 'b.tif', size: 20_000_000 },
      });
      expect(answer.json<{ upload: { part_size: number } }>().upload.part_size).toBe(
        Math.round(plan.upload.part_size / (1024 * 1024)),
      );
    });
  });

  it('B-CSV-LAST-ROW-DROPPED answers one row fewer than cell_count', async () => {
    const csvPath = `/api/v1/export/${segmentationId}/measurements.csv`;
    const lines = (reply: Reply) => reply.body.toString('utf8').trimEnd().split(/\r?\n/).length;
    expect(lines(await call(healthy, 'GET', csvPath, { key: ACME.key }))).toBe(cellCount + 1);
    await withRegression('B-CSV-LAST-ROW-DROPPED', async (broken) => {
      expect(lines(await call(broken, 'GET', csvPath, { key: ACME.key }))).toBe(cellCount);
    });
  });

  it('B-CSV-COLUMNS-FIRST-ONLY exports only the first of the repeated columns', async () => {
    const csvPath = `/api/v1/export/${segmentationId}/measurements.csv?columns=roi_id&columns=area_px`;
    const header = (reply: Reply) => reply.body.toString('utf8').split(/\r?\n/)[0];
    expect(header(await call(healthy, 'GET', csvPath, { key: ACME.key }))).toBe('roi_id,area_px');
    await withRegression('B-CSV-COLUMNS-FIRST-ONLY', async (broken) => {
      expect(header(await call(broken, 'GET', csvPath, { key: ACME.key }))).toBe('roi_id');
    });
  });

  it('B-GEO-RING-NOT-CLOSED answers rings whose last position is not their first', async () => {
    const geoPath = `/api/v1/export/${segmentationId}/rois.geojson`;
    type Collection = { features: Array<{ geometry: { coordinates: number[][][] } }> };
    const closed = (reply: Reply) =>
      reply
        .json<Collection>()
        .features.every(({ geometry }) =>
          geometry.coordinates.every((ring) => String(ring[0]) === String(ring[ring.length - 1])),
        );
    expect(closed(await call(healthy, 'GET', geoPath, { key: ACME.key }))).toBe(true);
    await withRegression('B-GEO-RING-NOT-CLOSED', async (broken) => {
      const reply = await call(broken, 'GET', geoPath, { key: ACME.key });
      expect(reply.headers.get('content-type')).toContain('geo+json');
      expect(closed(reply)).toBe(false);
    });
  });

  it('B-ZIP-ROI-LITTLE-ENDIAN writes each ROI header field little-endian', async () => {
    const zipPath = `/api/v1/export/${segmentationId}/rois.zip`;
    const firstRoi = async (reply: Reply) => {
      const zip = await JSZip.loadAsync(reply.body);
      const name = Object.keys(zip.files).find((n) => n.endsWith('.roi'))!;
      return Buffer.from(await zip.file(name)!.async('uint8array'));
    };
    const expected = await firstRoi(await call(healthy, 'GET', zipPath, { key: ACME.key }));
    expect(expected.readUInt16BE(4)).toBe(228);
    await withRegression('B-ZIP-ROI-LITTLE-ENDIAN', async (broken) => {
      const roi = await firstRoi(await call(broken, 'GET', zipPath, { key: ACME.key }));
      expect(roi.readUInt16LE(4)).toBe(228);
      expect(roi.readUInt16BE(4)).not.toBe(228);
    });
  });

  it('B-EXP-ETAG-IGNORES-OPTIONS gives two overlay sizes one ETag and answers 304 for bytes never held', async () => {
    const small = `/api/v1/export/${segmentationId}/overlay.png?max_size=16`;
    const large = `/api/v1/export/${segmentationId}/overlay.png?max_size=32`;
    const etag = async (proxy: RunningProxy, p: string) =>
      (await call(proxy, 'GET', p, { key: ACME.key })).headers.get('etag');
    expect(await etag(healthy, small)).not.toBe(await etag(healthy, large));
    await withRegression('B-EXP-ETAG-IGNORES-OPTIONS', async (broken) => {
      const held = await etag(broken, small);
      expect(await etag(broken, large)).toBe(held);
      const again = await call(broken, 'GET', large, { key: ACME.key, headers: { 'if-none-match': held! } });
      expect(again.status).toBe(304);
    });
  });

  it('B-PRED-STATUS-OTHER-ORG shows a prediction to another organization', async () => {
    const predictionPath = `/api/v1/predict/${predictionId}`;
    expect((await call(healthy, 'GET', predictionPath, { key: BETA.key })).status).toBe(404);
    await withRegression('B-PRED-STATUS-OTHER-ORG', async (broken) => {
      const reply = await call(broken, 'GET', predictionPath, { key: BETA.key });
      expect(reply.status).toBe(200);
      expect(reply.json().segmentation_id).toBe(segmentationId);
    });
  });

  it("B-MOD-LIST-CACHED-ACROSS-ORGS shows one organization's custom models to the next", async () => {
    const ids = (reply: Reply) =>
      reply
        .json<Array<{ id: string }>>()
        .map((m) => m.id)
        .sort();
    const betaModels = ids(await call(healthy, 'GET', '/api/v1/models', { key: BETA.key }));
    expect(betaModels).toContain(BETA.customModelIds[0]);
    await withRegression('B-MOD-LIST-CACHED-ACROSS-ORGS', async (broken) => {
      await call(broken, 'GET', '/api/v1/models', { key: ACME.key });
      const seen = ids(await call(broken, 'GET', '/api/v1/models', { key: BETA.key }));
      expect(seen).toContain(ACME.customModelIds[0]);
      expect(seen).not.toContain(BETA.customModelIds[0]);
    });
  });

  it('B-SH-NEW-SHARE-EACH-POST answers a new share to a repeated POST /shares', async () => {
    const body = { segmentation_id: segmentationId };
    const first = (await call(healthy, 'POST', '/api/v1/shares', { key: ACME.key, json: body })).json<{
      id: string;
    }>();
    const second = (await call(healthy, 'POST', '/api/v1/shares', { key: ACME.key, json: body })).json<{
      id: string;
    }>();
    expect(second.id).toBe(first.id);
    await withRegression('B-SH-NEW-SHARE-EACH-POST', async (broken) => {
      const a = (await call(broken, 'POST', '/api/v1/shares', { key: ACME.key, json: body })).json<{
        id: string;
      }>();
      const b = (await call(broken, 'POST', '/api/v1/shares', { key: ACME.key, json: body })).json<{
        id: string;
      }>();
      expect(b.id).not.toBe(a.id);
    });
  });

  it('B-SH-REVOKED-PAGE-CACHED still opens a revoked link, and B-AUTH-SHARE-PAGE-NEEDS-KEY refuses a live one without a key', async () => {
    const share = (
      await call(healthy, 'POST', '/api/v1/shares', {
        key: ACME.key,
        json: { segmentation_id: segmentationId },
      })
    ).json<{ id: string; url: string }>();
    const pagePath = new URL(share.url).pathname;
    expect((await call(healthy, 'GET', pagePath)).status).toBe(200);
    await withRegression('B-AUTH-SHARE-PAGE-NEEDS-KEY', async (broken) => {
      expect((await call(broken, 'GET', pagePath)).status).toBe(401);
    });
    await withRegression('B-SH-REVOKED-PAGE-CACHED', async (broken) => {
      expect((await call(broken, 'GET', pagePath)).status).toBe(200);
      expect((await call(broken, 'DELETE', `/api/v1/shares/${share.id}`, { key: ACME.key })).status).toBe(
        200,
      );
      expect((await call(healthy, 'GET', pagePath)).status).toBe(404);
      expect((await call(broken, 'GET', pagePath)).status).toBe(200);
    });
  });

  it('B-CAP-ABORTED-NOT-COUNTED lets an upload past the storage cap by deleting an aborted image', async () => {
    const open = (proxy: RunningProxy, name: string) =>
      call(proxy, 'POST', '/api/v1/upload', { key: TINY.key, json: { name, size: 1000 } });
    await withRegression('B-CAP-ABORTED-NOT-COUNTED', async (broken) => {
      const opened: string[] = [];
      for (const name of ['one.tif', 'two.tif']) {
        const reply = await open(healthy, name);
        expect(reply.status).toBe(200);
        opened.push(reply.json<{ image: { id: string } }>().image.id);
      }
      expect(
        (await call(broken, 'POST', `/api/v1/upload/${opened[0]}/abort`, { key: TINY.key })).status,
      ).toBe(200);
      expect((await open(healthy, 'three.tif')).status).toBe(402);
      expect((await open(broken, 'three.tif')).status).toBe(200);
      expect((await call(healthy, 'GET', `/api/v1/upload/${opened[0]}`, { key: TINY.key })).status).toBe(404);
    });
  });

  it('B-RES-COMPLETE-IGNORES-PARTS assembles every part where the mock refuses a wrong ETag in `parts`', async () => {
    const imageId = await uploadedParts(healthy, ACME.key);
    const complete = `/api/v1/upload/${imageId}/complete`;
    const wrong = { parts: [{ etag: '"00000000000000000000000000000000"', part_number: 1 }] };
    const refused = await call(healthy, 'POST', complete, { key: ACME.key, json: wrong });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    await withRegression('B-RES-COMPLETE-IGNORES-PARTS', async (broken) => {
      expect((await call(broken, 'POST', complete, { key: ACME.key, json: wrong })).status).toBe(202);
    });
  });

  it('B-PRED-FAILED-NO-ERROR leaves out the reason of a FAILED prediction', async () => {
    const forced = await fetch(`${mock.url}/__mock/org/predictions/outcomes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ACME.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'FAILED', error: 'GPU out of memory' }),
    });
    expect(forced.status).toBeLessThan(300);
    const ack = await call(healthy, 'POST', '/api/v1/predict', {
      key: ACME.key,
      json: { image_id: imageId, model_id: BASE_MODEL_ID },
    });
    const failedPath = `/api/v1/predict/${ack.json<{ prediction_id: string }>().prediction_id}`;
    let failed: Record<string, unknown> = {};
    for (let attempt = 0; attempt < 100 && failed.status !== 'FAILED'; attempt++) {
      failed = (await call(healthy, 'GET', failedPath, { key: ACME.key })).json();
      if (failed.status !== 'FAILED') await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(failed).toMatchObject({ status: 'FAILED', error: 'GPU out of memory' });
    await withRegression('B-PRED-FAILED-NO-ERROR', async (broken) => {
      const seen = (await call(broken, 'GET', failedPath, { key: ACME.key })).json();
      expect(seen.status).toBe('FAILED');
      expect(seen).not.toHaveProperty('error');
    });
  });

  it('B-DEL-NON-UUID-404 answers 404 where the mock refuses a non-UUID id with 422', async () => {
    expect((await call(healthy, 'DELETE', '/api/v1/upload/not-a-uuid', { key: ACME.key })).status).toBe(422);
    await withRegression('B-DEL-NON-UUID-404', async (broken) => {
      expect((await call(broken, 'DELETE', '/api/v1/upload/not-a-uuid', { key: ACME.key })).status).toBe(404);
    });
  });
});
