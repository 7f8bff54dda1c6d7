import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningProxy } from './regression-proxy.js';
import { seedOrganizations } from './regression.js';
import { SET_E } from './set-e/index.js';
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
 * Set E is effective: every regression is well formed, and a representative one of each kind of
 * bug (an encoding, a fencepost, a state kept across requests, an organization answered 403, a cap
 * checked where it should not be, a share lifecycle, a delete that does not cascade, a result keyed
 * on the wrong thing, a validator blind to the segmentation) changes an answer a client sees,
 * against a real mock started here. The healthy answer is read through a no-op proxy in front of
 * the same mock.
 */

const [ACME, BETA, TINY] = seedOrganizations();
const SPLIT_MODEL_ID = '506b80e4-1192-4640-aa2c-a72de23b4289';

let world: SetWorld;
let healthy: RunningProxy;
let imageId = '';
let predictionId = '';
let segmentationId = '';
let cellCount = 0;

beforeAll(async () => {
  world = await startSetWorld(SET_E);
  ({ healthy, imageId, predictionId, segmentationId, cellCount } = world);
});
afterAll(() => world?.close());
const withRegression: SetWorld['withRegression'] = (id, check) => world.withRegression(id, check);

async function upload(proxy: RunningProxy, name: string): Promise<Reply> {
  const form = new FormData();
  form.append('file', new Blob([SAMPLE_TIFF], { type: 'image/tiff' }), name);
  return call(proxy, 'POST', '/api/v1/upload', { key: ACME.key, form });
}

/** A prediction run through `proxy` and polled there until it ends. */
async function predicted(
  proxy: RunningProxy,
  image: string,
  model: string,
): Promise<{ prediction_id: string; status: string; segmentation_id?: string; cell_count?: number }> {
  const ack = await call(proxy, 'POST', '/api/v1/predict', {
    key: ACME.key,
    json: { image_id: image, model_id: model },
  });
  const id = ack.json<{ prediction_id: string }>().prediction_id;
  for (let attempt = 0; attempt < 100; attempt++) {
    const read = (await call(proxy, 'GET', `/api/v1/predict/${id}`, { key: ACME.key })).json<{
      prediction_id: string;
      status: string;
    }>();
    if (read.status === 'COMPLETED' || read.status === 'FAILED') return read;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`prediction ${id} did not end`);
}

describe('set E', () => {
  it('has at least 45 well-formed regressions over every area, about three quarters stated by the interface', () => {
    expectWellFormed(SET_E, { letter: 'E', least: 45, statedShare: 0.7, quoted: true });
  });

  it('E-UP-NAME-LATIN1 answers a non-ASCII file name decoded as Latin-1, in the upload and in later reads', async () => {
    await withRegression('E-UP-NAME-LATIN1', async (broken) => {
      const answer = await upload(broken, 'Zellen_ü.tif');
      const { id, name } = answer.json<{ image: { id: string; name: string } }>().image;
      expect(name).toBe('Zellen_Ã¼.tif');
      expect((await call(healthy, 'GET', `/api/v1/upload/${id}`, { key: ACME.key })).json().name).toBe(
        'Zellen_ü.tif',
      );
      expect((await call(broken, 'GET', `/api/v1/image/${id}`, { key: ACME.key })).json().name).toBe(
        'Zellen_Ã¼.tif',
      );
    });
  });

  it('E-RES-PLAN-EXTRA-PART plans one URL too many for a size that fills its parts exactly', async () => {
    const json = { name: 'exact.tif', size: 2 * 8 * 1024 * 1024 };
    type Opened = { upload: { part_size: number; urls: unknown[] } };
    const plan = (await call(healthy, 'POST', '/api/v1/upload', { key: BETA.key, json })).json<Opened>()
      .upload;
    expect(plan.urls).toHaveLength(json.size / plan.part_size);
    await withRegression('E-RES-PLAN-EXTRA-PART', async (broken) => {
      const seen = (await call(broken, 'POST', '/api/v1/upload', { key: BETA.key, json })).json<Opened>();
      expect(seen.upload.urls).toHaveLength(json.size / plan.part_size + 1);
    });
  });

  it('E-ZIP-SECOND-DOWNLOAD-EMPTY answers an archive with no .roi entry from the second download on', async () => {
    const zipPath = `/api/v1/export/${segmentationId}/rois.zip`;
    const rois = async (reply: Reply) =>
      Object.keys((await JSZip.loadAsync(reply.body)).files).filter((name) => name.endsWith('.roi')).length;
    expect(await rois(await call(healthy, 'GET', zipPath, { key: ACME.key }))).toBe(cellCount);
    await withRegression('E-ZIP-SECOND-DOWNLOAD-EMPTY', async (broken) => {
      expect(await rois(await call(broken, 'GET', zipPath, { key: ACME.key }))).toBe(cellCount);
      const again = await call(broken, 'GET', zipPath, { key: ACME.key });
      expect(again.status).toBe(200);
      expect(await rois(again)).toBe(0);
    });
  });

  it("E-AUTH-OTHER-ORG-IMAGE-403 answers another organization's image 403 where the mock says 404", async () => {
    const imagePath = `/api/v1/image/${imageId}`;
    expect((await call(healthy, 'GET', imagePath, { key: BETA.key })).status).toBe(404);
    await withRegression('E-AUTH-OTHER-ORG-IMAGE-403', async (broken) => {
      expect((await call(broken, 'GET', imagePath, { key: BETA.key })).status).toBe(403);
      expect((await call(broken, 'GET', imagePath, { key: ACME.key })).status).toBe(200);
    });
  });

  it('E-CAP-COMPLETE-AT-CAP refuses 402 the completion of an upload that holds the last slot', async () => {
    await withRegression('E-CAP-COMPLETE-AT-CAP', async (broken) => {
      const parts = await uploadedParts(healthy, TINY.key);
      const second = await call(healthy, 'POST', '/api/v1/upload', {
        key: TINY.key,
        json: { name: 'second.tif', size: 100 },
      });
      expect(second.status).toBe(200);
      const complete = `/api/v1/upload/${parts}/complete`;
      expect((await call(broken, 'POST', complete, { key: TINY.key })).status).toBe(402);
      expect((await call(healthy, 'POST', complete, { key: TINY.key })).status).toBe(202);
    });
  });

  it('E-SH-REPOST-REVIVES-REVOKED answers the revoked share live again, whose old link opens', async () => {
    await withRegression('E-SH-REPOST-REVIVES-REVOKED', async (broken) => {
      const body = { segmentation_id: segmentationId };
      const share = (await call(broken, 'POST', '/api/v1/shares', { key: ACME.key, json: body })).json<{
        id: string;
        url: string;
      }>();
      const page = new URL(share.url).pathname;
      expect((await call(broken, 'DELETE', `/api/v1/shares/${share.id}`, { key: ACME.key })).status).toBe(
        200,
      );
      expect((await call(broken, 'GET', page)).status).toBe(404);
      const again = (await call(broken, 'POST', '/api/v1/shares', { key: ACME.key, json: body })).json<{
        id: string;
        url: string;
        revoked_at: string | null;
      }>();
      expect(again).toMatchObject({ id: share.id, url: share.url, revoked_at: null });
      expect((await call(broken, 'GET', page)).status).toBe(200);
      expect((await call(healthy, 'GET', page)).status).toBe(404);
    });
  });

  it('E-DEL-SEGMENTED-IMAGE-409 refuses to delete an image that was predicted, and only that one', async () => {
    await withRegression('E-DEL-SEGMENTED-IMAGE-409', async (broken) => {
      const segmented = (await upload(healthy, 'segmented.tif')).json<{ image: { id: string } }>().image.id;
      const plain = (await upload(healthy, 'plain.tif')).json<{ image: { id: string } }>().image.id;
      expect((await predicted(broken, segmented, BASE_MODEL_ID)).status).toBe('COMPLETED');
      expect((await call(broken, 'DELETE', `/api/v1/image/${segmented}`, { key: ACME.key })).status).toBe(
        409,
      );
      expect((await call(healthy, 'GET', `/api/v1/image/${segmented}`, { key: ACME.key })).status).toBe(200);
      expect((await call(broken, 'DELETE', `/api/v1/image/${plain}`, { key: ACME.key })).status).toBe(200);
    });
  });

  it("E-PRED-SEGMENTATION-PER-IMAGE answers a second model's run with the first run's segmentation", async () => {
    await withRegression('E-PRED-SEGMENTATION-PER-IMAGE', async (broken) => {
      const first = (await call(broken, 'GET', `/api/v1/predict/${predictionId}`, { key: ACME.key })).json();
      expect(first.segmentation_id).toBe(segmentationId);
      const second = await predicted(broken, imageId, SPLIT_MODEL_ID);
      expect(second.status).toBe('COMPLETED');
      const truth = (
        await call(healthy, 'GET', `/api/v1/predict/${second.prediction_id}`, { key: ACME.key })
      ).json<{ segmentation_id: string }>();
      expect(truth.segmentation_id).not.toBe(segmentationId);
      expect(second.segmentation_id).toBe(segmentationId);
    });
  });

  it("E-EXP-ETAG-IGNORES-SEGMENTATION answers 304 for one segmentation with another's ETag", async () => {
    const other = await predicted(healthy, imageId, SPLIT_MODEL_ID);
    const geo = (segmentation: string) => `/api/v1/export/${segmentation}/rois.geojson`;
    const held = (await call(healthy, 'GET', geo(segmentationId), { key: ACME.key })).headers.get('etag')!;
    const ask = { key: ACME.key, headers: { 'if-none-match': held } };
    expect((await call(healthy, 'GET', geo(other.segmentation_id!), ask)).status).toBe(200);
    await withRegression('E-EXP-ETAG-IGNORES-SEGMENTATION', async (broken) => {
      const etag = (await call(broken, 'GET', geo(segmentationId), { key: ACME.key })).headers.get('etag')!;
      const asked = { key: ACME.key, headers: { 'if-none-match': etag } };
      const reply = await call(broken, 'GET', geo(other.segmentation_id!), asked);
      expect(reply.status).toBe(304);
      expect(reply.body.length).toBe(0);
    });
  });

  it('E-AUTH-SCHEME-CASE-SENSITIVE refuses a key sent with the scheme in lower case', async () => {
    const headers = { authorization: `bearer ${ACME.key}` };
    expect((await call(healthy, 'GET', '/api/v1/models', { headers })).status).toBe(200);
    await withRegression('E-AUTH-SCHEME-CASE-SENSITIVE', async (broken) => {
      expect((await call(broken, 'GET', '/api/v1/models', { headers })).status).toBe(401);
      expect((await call(broken, 'GET', '/api/v1/models', { key: ACME.key })).status).toBe(200);
    });
  });
});
