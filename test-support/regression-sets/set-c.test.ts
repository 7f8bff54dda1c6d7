import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedMock } from './launch-mock.js';
import type { RunningProxy } from './regression-proxy.js';
import { seedOrganizations } from './regression.js';
import { SET_C } from './set-c/index.js';
import {
  call,
  startSetWorld,
  uploadedParts,
  type Reply,
  type SetWorld,
  expectWellFormed,
} from './set-test-kit.js';

/**
 * Set C is effective: every regression is well formed, and a representative one of each kind of
 * bug (a field, a status, a unit of coordinates, a filter lost, a cache never purged, a state kept
 * across requests, an organization leak, a cap off by one, an export's entries, a delete) changes
 * an answer a client sees, against a real mock started here. The healthy answer is read through a
 * no-op proxy in front of the same mock.
 */

const [ACME, BETA, TINY] = seedOrganizations();

let world: SetWorld;
let mock: LaunchedMock;
let healthy: RunningProxy;
let imageId = '';
let segmentationId = '';
let cellCount = 0;

async function newShare(proxy: RunningProxy): Promise<{ id: string; url: string }> {
  const reply = await call(proxy, 'POST', '/api/v1/shares', {
    key: ACME.key,
    json: { segmentation_id: segmentationId },
  });
  expect(reply.status).toBe(200);
  return reply.json<{ id: string; url: string }>();
}

beforeAll(async () => {
  world = await startSetWorld(SET_C);
  ({ mock, healthy, imageId, segmentationId, cellCount } = world);
});
afterAll(() => world?.close());
const withRegression: SetWorld['withRegression'] = (id, check) => world.withRegression(id, check);

describe('set C', () => {
  it('has about 45 well-formed regressions over every area, three quarters stated by the interface and quoting it', () => {
    expectWellFormed(SET_C, { letter: 'C', least: 40, statedShare: 3 / 4, quoted: true });
  });

  it('C-AUTH-KEY-EXTRA-CHARS accepts a valid key with characters appended', async () => {
    const key = `${ACME.key}0`;
    expect((await call(healthy, 'GET', '/api/v1/models', { key })).status).toBe(401);
    await withRegression('C-AUTH-KEY-EXTRA-CHARS', async (broken) => {
      expect((await call(broken, 'GET', '/api/v1/models', { key })).status).toBe(200);
    });
  });

  it('C-UP-IMAGE-TYPE-LOWERCASE answers `image_type: tiff` in image reads', async () => {
    const read = `/api/v1/image/${imageId}`;
    expect((await call(healthy, 'GET', read, { key: ACME.key })).json().image_type).toBe('TIFF');
    await withRegression('C-UP-IMAGE-TYPE-LOWERCASE', async (broken) => {
      expect((await call(broken, 'GET', read, { key: ACME.key })).json().image_type).toBe('tiff');
    });
  });

  it('C-RES-EMPTY-PARTS-REFUSED refuses an empty `parts` list the mock completes from storage', async () => {
    const empty = { parts: [] };
    const first = await uploadedParts(healthy, ACME.key);
    expect(
      (await call(healthy, 'POST', `/api/v1/upload/${first}/complete`, { key: ACME.key, json: empty }))
        .status,
    ).toBe(202);
    const second = await uploadedParts(healthy, ACME.key);
    await withRegression('C-RES-EMPTY-PARTS-REFUSED', async (broken) => {
      const reply = await call(broken, 'POST', `/api/v1/upload/${second}/complete`, {
        key: ACME.key,
        json: empty,
      });
      expect(reply.status).toBe(422);
    });
  });

  it('C-MOD-LIST-STALE keeps answering the model list of the first read after a custom model is added', async () => {
    await withRegression('C-MOD-LIST-STALE', async (broken) => {
      const before = (await call(broken, 'GET', '/api/v1/models', { key: BETA.key })).json<unknown[]>()
        .length;
      const added = await call(mock.url, 'POST', `/__mock/organizations/${BETA.id}/models`, {
        json: { name: 'beta-late-model', engine: 'threshold' },
      });
      expect(added.status).toBe(200);
      const now = (await call(healthy, 'GET', '/api/v1/models', { key: BETA.key })).json<unknown[]>().length;
      expect(now).toBe(before + 1);
      expect((await call(broken, 'GET', '/api/v1/models', { key: BETA.key })).json<unknown[]>().length).toBe(
        before,
      );
    });
  });

  it('C-PRED-UNKNOWN-MODEL-422 answers 422 where the mock answers 404 for a model that does not exist', async () => {
    const body = { image_id: imageId, model_id: '11111111-2222-4333-8444-555555555555' };
    expect((await call(healthy, 'POST', '/api/v1/predict', { key: ACME.key, json: body })).status).toBe(404);
    await withRegression('C-PRED-UNKNOWN-MODEL-422', async (broken) => {
      expect((await call(broken, 'POST', '/api/v1/predict', { key: ACME.key, json: body })).status).toBe(422);
    });
  });

  it('C-CAP-LAST-SLOT-REFUSED refuses the last image the plan allows', async () => {
    const open = (proxy: RunningProxy, name: string) =>
      call(proxy, 'POST', '/api/v1/upload', { key: TINY.key, json: { name, size: 1000 } });
    await withRegression('C-CAP-LAST-SLOT-REFUSED', async (broken) => {
      expect((await open(broken, 'one.tif')).status).toBe(200);
      const refused = await open(broken, 'two.tif');
      expect(refused.status).toBe(402);
      expect(refused.json().detail).toMatch(/allows 2 images/);
      expect((await open(healthy, 'two.tif')).status).toBe(200);
    });
  });

  it('C-CSV-DISTINCT-ROWS collapses equal rows of a `columns` selection', async () => {
    const csvPath = `/api/v1/export/${segmentationId}/measurements.csv?columns=cell_type`;
    const lines = (reply: Reply) => reply.body.toString('utf8').trimEnd().split(/\r?\n/).length;
    expect(lines(await call(healthy, 'GET', csvPath, { key: ACME.key }))).toBe(cellCount + 1);
    await withRegression('C-CSV-DISTINCT-ROWS', async (broken) => {
      expect(lines(await call(broken, 'GET', csvPath, { key: ACME.key }))).toBe(2);
    });
  });

  it('C-GEO-NORMALISED-COORDINATES writes positions as fractions of the image', async () => {
    const geoPath = `/api/v1/export/${segmentationId}/rois.geojson`;
    type Collection = { features: Array<{ geometry: { coordinates: number[][][] } }> };
    const largest = (reply: Reply) =>
      Math.max(...reply.json<Collection>().features.flatMap((f) => f.geometry.coordinates.flat(2)));
    expect(largest(await call(healthy, 'GET', geoPath, { key: ACME.key }))).toBeGreaterThan(1);
    await withRegression('C-GEO-NORMALISED-COORDINATES', async (broken) => {
      expect(largest(await call(broken, 'GET', geoPath, { key: ACME.key }))).toBeLessThanOrEqual(1);
    });
  });

  it('C-ZIP-ENTRIES-NO-EXTENSION names the ZIP entries without `.roi`', async () => {
    const zipPath = `/api/v1/export/${segmentationId}/rois.zip`;
    const names = async (reply: Reply) => Object.keys((await JSZip.loadAsync(reply.body)).files);
    const expected = await names(await call(healthy, 'GET', zipPath, { key: ACME.key }));
    expect(expected.every((name) => name.endsWith('.roi'))).toBe(true);
    await withRegression('C-ZIP-ENTRIES-NO-EXTENSION', async (broken) => {
      const seen = await names(await call(broken, 'GET', zipPath, { key: ACME.key }));
      expect(seen).toHaveLength(expected.length);
      expect(seen.some((name) => name.endsWith('.roi'))).toBe(false);
    });
  });

  it("C-SH-REVOKE-OTHER-ORG lets another organization's key revoke a share", async () => {
    const share = await newShare(healthy);
    const revoke = (proxy: RunningProxy) =>
      call(proxy, 'DELETE', `/api/v1/shares/${share.id}`, { key: BETA.key });
    expect((await revoke(healthy)).status).toBe(404);
    await withRegression('C-SH-REVOKE-OTHER-ORG', async (broken) => {
      expect((await revoke(broken)).status).toBe(200);
      const read = await call(healthy, 'GET', `/api/v1/shares/${share.id}`, { key: ACME.key });
      expect(read.json().revoked_at).not.toBeNull();
    });
  });

  it('C-SH-NEW-SHARE-OLD-TOKEN gives the share made after a revoke the revoked link, which opens again', async () => {
    await withRegression('C-SH-NEW-SHARE-OLD-TOKEN', async (broken) => {
      const first = await newShare(broken);
      expect((await call(broken, 'DELETE', `/api/v1/shares/${first.id}`, { key: ACME.key })).status).toBe(
        200,
      );
      const second = await newShare(broken);
      expect(second.id).not.toBe(first.id);
      expect(second.url).toBe(first.url);
      const pagePath = new URL(first.url).pathname;
      expect((await call(healthy, 'GET', pagePath)).status).toBe(404);
      expect((await call(broken, 'GET', pagePath)).status).toBe(200);
    });
  });

  it('C-DEL-FAILED-IMAGE-NOT-FOUND answers 404 to the delete of an aborted image, which stays', async () => {
    const aborted = async () => {
      const opened = await call(healthy, 'POST', '/api/v1/upload', {
        key: ACME.key,
        json: { name: 'gone.tif', size: 1000 },
      });
      const id = opened.json<{ image: { id: string } }>().image.id;
      expect((await call(healthy, 'POST', `/api/v1/upload/${id}/abort`, { key: ACME.key })).status).toBe(200);
      return id;
    };
    const first = await aborted();
    expect((await call(healthy, 'DELETE', `/api/v1/upload/${first}`, { key: ACME.key })).status).toBe(200);
    const second = await aborted();
    await withRegression('C-DEL-FAILED-IMAGE-NOT-FOUND', async (broken) => {
      expect((await call(broken, 'DELETE', `/api/v1/upload/${second}`, { key: ACME.key })).status).toBe(404);
      const still = await call(healthy, 'GET', `/api/v1/upload/${second}`, { key: ACME.key });
      expect(still.json().upload_status).toBe('failed');
    });
  });
});
