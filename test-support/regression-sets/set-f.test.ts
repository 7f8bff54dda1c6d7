import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningProxy } from './regression-proxy.js';
import { seedOrganizations } from './regression.js';
import { SET_F } from './set-f/index.js';
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
 * Set F is effective: every regression is well formed, and a representative one of each kind of
 * bug (a filter on the wrong owner, a limit rounded, a header compared exactly, a state kept across
 * requests, a lagging write, a plan cached, a binary export off by one, a validator answered before
 * the organization check, a coalesced page, a delete that reaches too far) changes an answer a
 * client sees, against a real mock started here. The healthy answer is read through a no-op proxy
 * in front of the same mock.
 */

const [ACME, BETA] = seedOrganizations();

let world: SetWorld;
let healthy: RunningProxy;
let segmentationId = '';

beforeAll(async () => {
  world = await startSetWorld(SET_F);
  ({ healthy, segmentationId } = world);
});
afterAll(() => world?.close());
const withRegression: SetWorld['withRegression'] = (id, check) => world.withRegression(id, check);

async function upload(proxy: RunningProxy, key: string, name = 'cells.tif'): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([SAMPLE_TIFF], { type: 'image/tiff' }), name);
  const answer = await call(proxy, 'POST', '/api/v1/upload', { key, form });
  expect(answer.status).toBe(200);
  return answer.json<{ image: { id: string } }>().image.id;
}

/** Predicts with the base model and polls until COMPLETED, through `proxy`: the reads it saw. */
async function predicted(proxy: RunningProxy, key: string, image: string): Promise<Reply[]> {
  const ack = await call(proxy, 'POST', '/api/v1/predict', {
    key,
    json: { image_id: image, model_id: BASE_MODEL_ID },
  });
  const id = ack.json<{ prediction_id: string }>().prediction_id;
  const reads: Reply[] = [];
  for (let attempt = 0; attempt < 100; attempt++) {
    const read = await call(proxy, 'GET', `/api/v1/predict/${id}`, { key });
    reads.push(read);
    if (read.status === 200 && read.json<{ status: string }>().status === 'COMPLETED') return reads;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`prediction ${id} did not complete`);
}

async function newOrganization(proxy: RunningProxy, caps: number): Promise<{ id: string; key: string }> {
  const created = await call(proxy, 'POST', '/__mock/organizations', {
    json: {
      name: 'Set F',
      plan: { name: 'trial', storage_cap_images: caps, monthly_analysis_cap: caps },
    },
  });
  expect(created.status).toBe(200);
  const body = created.json<{ id: string; api_keys: string[] }>();
  return { id: body.id, key: body.api_keys[0] };
}

describe('set F', () => {
  it('has at least 40 well-formed regressions over every area, two thirds stated by the interface', () => {
    expectWellFormed(SET_F, { letter: 'F', least: 40, statedShare: 2 / 3, quoted: true });
  });

  it('F-AUTH-SECOND-KEY-IMAGES-HIDDEN hides an image from another key of the same organization', async () => {
    await withRegression('F-AUTH-SECOND-KEY-IMAGES-HIDDEN', async (broken) => {
      const added = await call(broken, 'POST', `/__mock/organizations/${ACME.id}/keys`);
      const second = added.json<{ api_key: string }>().api_key;
      const image = await upload(broken, ACME.key);
      expect((await call(healthy, 'GET', `/api/v1/upload/${image}`, { key: second })).status).toBe(200);
      expect((await call(broken, 'GET', `/api/v1/upload/${image}`, { key: second })).status).toBe(404);
      expect((await call(broken, 'GET', `/api/v1/upload/${image}`, { key: ACME.key })).status).toBe(200);
    });
  });

  it('F-UP-SIZE-LIMIT-MIB-ROUNDED accepts a declared size just over 4 GB', async () => {
    const json = { name: 'big.tif', size: 4294967296 + 1000 };
    expect((await call(healthy, 'POST', '/api/v1/upload', { key: BETA.key, json })).status).toBe(422);
    await withRegression('F-UP-SIZE-LIMIT-MIB-ROUNDED', async (broken) => {
      const answer = await call(broken, 'POST', '/api/v1/upload', { key: BETA.key, json });
      expect(answer.status).toBe(200);
      expect(answer.json<{ image: { size: number } }>().image.size).toBe(json.size);
    });
  });

  it('F-UP-JSON-CHARSET-415 refuses a resumable open whose Content-Type carries a charset', async () => {
    const open = (proxy: RunningProxy) =>
      fetch(`${proxy.url}/api/v1/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${BETA.key}`, 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ name: 'a.tif', size: 1000 }),
      });
    expect((await open(healthy)).status).toBe(200);
    await withRegression('F-UP-JSON-CHARSET-415', async (broken) => {
      expect((await open(broken)).status).toBe(415);
    });
  });

  it('F-RES-PART-RETRY-409 refuses a part PUT again after a lost answer', async () => {
    const putTwice = async (proxy: RunningProxy) => {
      const opened = await call(proxy, 'POST', '/api/v1/upload', {
        key: BETA.key,
        json: { name: 'retry.tif', size: SAMPLE_TIFF.length },
      });
      const [part] = opened.json<{ upload: { urls: Array<{ url: string }> } }>().upload.urls;
      expect((await fetch(part.url, { method: 'PUT', body: SAMPLE_TIFF })).status).toBe(200);
      return (await fetch(part.url, { method: 'PUT', body: SAMPLE_TIFF })).status;
    };
    expect(await putTwice(healthy)).toBe(200);
    await withRegression('F-RES-PART-RETRY-409', async (broken) => {
      expect(await putTwice(broken)).toBe(409);
    });
  });

  it('F-MOD-NEW-ORG-NO-BASE lists no base model to an organization created after the seed', async () => {
    await withRegression('F-MOD-NEW-ORG-NO-BASE', async (broken) => {
      const org = await newOrganization(broken, 5);
      const kinds = async (proxy: RunningProxy) =>
        (await call(proxy, 'GET', '/api/v1/models', { key: org.key })).json<Array<{ kind: string }>>();
      expect((await kinds(healthy)).some((model) => model.kind === 'base')).toBe(true);
      expect(await kinds(broken)).toEqual([]);
    });
  });

  it('F-PRED-COUNT-LAGS-COMPLETED leaves cell_count out of the first COMPLETED read', async () => {
    await withRegression('F-PRED-COUNT-LAGS-COMPLETED', async (broken) => {
      const reads = await predicted(broken, BETA.key, await upload(broken, BETA.key));
      const first = reads.at(-1)!.json<{ status: string; cell_count?: number; prediction_id: string }>();
      expect(first.status).toBe('COMPLETED');
      expect(first).not.toHaveProperty('cell_count');
      const again = await call(healthy, 'GET', `/api/v1/predict/${first.prediction_id}`, { key: BETA.key });
      expect(again.json<{ cell_count: number }>().cell_count).toBeGreaterThan(0);
    });
  });

  it('F-CAP-PLAN-CACHED-FOREVER holds an organization to its plan before an upgrade', async () => {
    await withRegression('F-CAP-PLAN-CACHED-FOREVER', async (broken) => {
      const org = await newOrganization(broken, 1);
      await upload(broken, org.key);
      await call(healthy, 'PUT', `/__mock/organizations/${org.id}/plan`, {
        json: { name: 'team', storage_cap_images: 10, monthly_analysis_cap: 10 },
      });
      const json = { name: 'after-upgrade.tif', size: 1000 };
      expect((await call(broken, 'POST', '/api/v1/upload', { key: org.key, json })).status).toBe(402);
      expect((await call(healthy, 'POST', '/api/v1/upload', { key: org.key, json })).status).toBe(200);
    });
  });

  it('F-ZIP-BOUNDS-INCLUSIVE writes each ROI header one pixel short at the bottom and right', async () => {
    const bounds = async (proxy: RunningProxy) => {
      const reply = await call(proxy, 'GET', `/api/v1/export/${segmentationId}/rois.zip`, { key: ACME.key });
      const zip = await JSZip.loadAsync(reply.body);
      const name = Object.keys(zip.files).find((entry) => entry.endsWith('.roi'))!;
      const roi = Buffer.from(await zip.file(name)!.async('uint8array'));
      return [8, 10, 12, 14].map((offset) => roi.readInt16BE(offset));
    };
    const [top, left, bottom, right] = await bounds(healthy);
    await withRegression('F-ZIP-BOUNDS-INCLUSIVE', async (broken) => {
      expect(await bounds(broken)).toEqual([top, left, bottom - 1, right - 1]);
    });
  });

  it('F-GEO-FEATURE-ID-INDEX gives each feature its roi_index as id', async () => {
    const geoPath = `/api/v1/export/${segmentationId}/rois.geojson`;
    type Collection = { features: Array<{ id: unknown; properties: { roi_id: string; roi_index: number } }> };
    const [feature] = (await call(healthy, 'GET', geoPath, { key: ACME.key })).json<Collection>().features;
    expect(feature.id).toBe(feature.properties.roi_id);
    await withRegression('F-GEO-FEATURE-ID-INDEX', async (broken) => {
      const [first] = (await call(broken, 'GET', geoPath, { key: ACME.key })).json<Collection>().features;
      expect(first.id).toBe(first.properties.roi_index);
    });
  });

  it('F-EXP-304-BEFORE-ORG-CHECK answers 304 to another organization that sends the ETag', async () => {
    const csvPath = `/api/v1/export/${segmentationId}/measurements.csv`;
    await withRegression('F-EXP-304-BEFORE-ORG-CHECK', async (broken) => {
      const etag = (await call(broken, 'GET', csvPath, { key: ACME.key })).headers.get('etag')!;
      const init = { key: BETA.key, headers: { 'if-none-match': etag } };
      expect((await call(healthy, 'GET', csvPath, init)).status).toBe(404);
      expect((await call(broken, 'GET', csvPath, init)).status).toBe(304);
    });
  });

  it('F-SH-PAGE-MICROCACHED-VIEWS counts one view for opens of a link within a second', async () => {
    const share = (
      await call(healthy, 'POST', '/api/v1/shares', {
        key: ACME.key,
        json: { segmentation_id: segmentationId },
      })
    ).json<{ id: string; url: string }>();
    const views = async () =>
      (await call(healthy, 'GET', `/api/v1/shares/${share.id}`, { key: ACME.key })).json<{
        view_count: number;
      }>().view_count;
    const openFour = (url: string) =>
      Promise.all([1, 2, 3, 4].map(() => fetch(url).then((page) => page.text())));
    const before = await views();
    await openFour(share.url);
    expect(await views()).toBe(before + 4);
    await withRegression('F-SH-PAGE-MICROCACHED-VIEWS', async (broken) => {
      await openFour(share.url.replace(healthy.url, broken.url));
      expect(await views()).toBe(before + 5);
    });
  });

  it('F-DEL-SAME-NAME-FILES-LOST loses the exports of another image of the same name', async () => {
    await withRegression('F-DEL-SAME-NAME-FILES-LOST', async (broken) => {
      const doomed = await upload(broken, BETA.key, 'same.tif');
      const kept = await upload(broken, BETA.key, 'same.tif');
      const reads = await predicted(broken, BETA.key, kept);
      const segmentation = reads.at(-1)!.json<{ segmentation_id: string }>().segmentation_id;
      expect((await call(broken, 'DELETE', `/api/v1/upload/${doomed}`, { key: BETA.key })).status).toBe(200);
      const csvPath = `/api/v1/export/${segmentation}/measurements.csv`;
      expect((await call(healthy, 'GET', csvPath, { key: BETA.key })).status).toBe(200);
      expect((await call(broken, 'GET', csvPath, { key: BETA.key })).status).toBe(404);
    });
  });
});
