import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningProxy } from './regression-proxy.js';
import { seedOrganizations } from './regression.js';
import { SET_J } from './set-j/index.js';
import {
  BASE_MODEL_ID,
  call,
  expectWellFormed,
  SAMPLE_TIFF,
  startSetWorld,
  uploadedParts,
  type SetWorld,
} from './set-test-kit.js';

/**
 * Set J is well formed, and a representative regression of each kind (a header on a refusal, a
 * second key, a boundary input, a race, a sequence over a resumable upload, a cap, an export asked
 * twice, a share after a revoke, a delete) changes what a client sees against a real mock, while
 * the healthy mock answers as the interface says.
 */

const [acme, beta, tiny] = seedOrganizations();
const SPLIT_MODEL_ID = '506b80e4-1192-4640-aa2c-a72de23b4289';
const DARK_MODEL_ID = 'bfb63a56-78f5-4f9a-b198-f7919e5ff1ba';

function multipart(name: string): FormData {
  const form = new FormData();
  form.append('file', new Blob([SAMPLE_TIFF], { type: 'image/tiff' }), name);
  return form;
}

async function predictAndWait(proxy: RunningProxy, key: string, imageId: string, modelId: string) {
  const ack = await call(proxy, 'POST', '/api/v1/predict', {
    key,
    json: { image_id: imageId, model_id: modelId },
  });
  expect(ack.status).toBe(200);
  const id = ack.json<{ prediction_id: string }>().prediction_id;
  for (let attempt = 0; attempt < 100; attempt++) {
    const read = (await call(proxy, 'GET', `/api/v1/predict/${id}`, { key })).json<{
      status: string;
      segmentation_id?: string;
    }>();
    if (read.status === 'COMPLETED' || read.status === 'FAILED') return read;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`prediction ${id} never finished`);
}

async function pollReady(proxy: RunningProxy, key: string, imageId: string) {
  for (let attempt = 0; attempt < 100; attempt++) {
    const image = (await call(proxy, 'GET', `/api/v1/upload/${imageId}`, { key })).json<
      Record<string, unknown>
    >();
    if (image.upload_status === 'ready' || image.upload_status === 'failed') return image;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`image ${imageId} never converted`);
}

/** CSV rows as a reader sees them: blank lines skipped. */
function csvRows(body: Buffer): string[] {
  return body
    .toString('utf8')
    .split('\r\n')
    .filter((line) => line.length > 0);
}

describe('regression set J', () => {
  let world: SetWorld;
  beforeAll(async () => {
    world = await startSetWorld(SET_J);
  }, 120_000);
  afterAll(async () => {
    await world?.close();
  });

  it('is well formed: 35 regressions over every area, most breaking a sentence the interface states', () => {
    expectWellFormed(SET_J, { letter: 'J', least: 32, statedShare: 3 / 4, quoted: true });
    expect(SET_J).toHaveLength(35);
    expect(SET_J.filter((r) => r.statedIn === 'interface').length).toBeGreaterThanOrEqual(27);
  });

  it('J-AUTH-401-NO-CORS: a refused request loses its CORS headers', async () => {
    const headers = { origin: 'https://lab.example' };
    const healthy = await call(world.healthy, 'GET', '/api/v1/models', { headers });
    expect(healthy.status).toBe(401);
    expect(healthy.headers.get('access-control-allow-origin')).toBeTruthy();
    await world.withRegression('J-AUTH-401-NO-CORS', async (broken) => {
      const refused = await call(broken, 'GET', '/api/v1/models', { headers });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      expect(refused.headers.get('access-control-expose-headers')).toBeNull();
    });
  });

  it("J-AUTH-SECOND-KEY-COMPLETE-403: another key of the organization cannot complete the first key's upload", async () => {
    await world.withRegression('J-AUTH-SECOND-KEY-COMPLETE-403', async (broken) => {
      const added = await call(broken, 'POST', `/__mock/organizations/${acme.id}/keys`);
      expect(added.status).toBe(200);
      const second = added.json<{ api_key: string }>().api_key;
      const healthyId = await uploadedParts(world.healthy, acme.key);
      const healthy = await call(world.healthy, 'POST', `/api/v1/upload/${healthyId}/complete`, {
        key: second,
      });
      expect(healthy.status).toBe(202);
      const brokenId = await uploadedParts(broken, acme.key);
      const refused = await call(broken, 'POST', `/api/v1/upload/${brokenId}/complete`, { key: second });
      expect(refused.status).toBe(403);
    });
  });

  it('J-UP-CREATE-FOLDER-UNCHECKED: an image record is filed in a folder that is not the organization’s', async () => {
    const json = { name: 'foldered.tif', size: 1000, folder_id: '0b0e6a8e-1b4c-4c55-9a0e-6d2b1f4e9a11' };
    expect((await call(world.healthy, 'POST', '/api/v1/image', { key: acme.key, json })).status).toBe(404);
    await world.withRegression('J-UP-CREATE-FOLDER-UNCHECKED', async (broken) => {
      const created = await call(broken, 'POST', '/api/v1/image', { key: acme.key, json });
      expect(created.status).toBe(200);
      expect(created.json<{ folder_id: string }>().folder_id).toBe(json.folder_id);
    });
  });

  it('J-UP-CONCURRENT-ANSWERS-SWAPPED: two uploads at once are answered the same image', async () => {
    const healthy = await Promise.all(
      ['left.tif', 'right.tif'].map((name) =>
        call(world.healthy, 'POST', '/api/v1/upload', { key: acme.key, form: multipart(name) }),
      ),
    );
    expect(healthy.map((r) => r.json<{ image: { name: string } }>().image.name)).toEqual([
      'left.tif',
      'right.tif',
    ]);
    await world.withRegression('J-UP-CONCURRENT-ANSWERS-SWAPPED', async (broken) => {
      const answers = await Promise.all(
        ['left.tif', 'right.tif'].map((name) =>
          call(broken, 'POST', '/api/v1/upload', { key: acme.key, form: multipart(name) }),
        ),
      );
      const images = answers.map((r) => r.json<{ image: { id: string; name: string } }>().image);
      expect(images[0].id).toBe(images[1].id);
      expect(new Set(images.map((image) => image.name)).size).toBe(1);
    });
  });

  it('J-RES-READY-KEEPS-REFUSAL-ERROR: a refused complete leaves its reason on the image once it is ready', async () => {
    await world.withRegression('J-RES-READY-KEEPS-REFUSAL-ERROR', async (broken) => {
      for (const proxy of [world.healthy, broken]) {
        const imageId = await uploadedParts(proxy, acme.key);
        const wrong = await call(proxy, 'POST', `/api/v1/upload/${imageId}/complete`, {
          key: acme.key,
          json: { parts: [{ part_number: 1, etag: '"00000000000000000000000000000000"' }] },
        });
        expect(wrong.status).toBe(422);
        expect(
          (await call(proxy, 'POST', `/api/v1/upload/${imageId}/complete`, { key: acme.key })).status,
        ).toBe(202);
        const ready = await pollReady(proxy, acme.key, imageId);
        expect(ready.upload_status).toBe('ready');
        if (proxy === broken) expect(ready.upload_error).toEqual(expect.stringContaining('ETag'));
        else expect(ready.upload_error ?? null).toBeNull();
      }
    });
  });

  it('J-MOD-ID-PREFIX-MATCH: a model id that only starts like a base model runs it', async () => {
    const json = {
      image_id: world.imageId,
      model_id: `${BASE_MODEL_ID.slice(0, 8)}-0000-4000-8000-000000000000`,
    };
    expect((await call(world.healthy, 'POST', '/api/v1/predict', { key: acme.key, json })).status).toBe(404);
    await world.withRegression('J-MOD-ID-PREFIX-MATCH', async (broken) => {
      const ack = await call(broken, 'POST', '/api/v1/predict', { key: acme.key, json });
      expect(ack.status).toBe(200);
    });
  });

  it('J-PRED-URN-ID-REFUSED: ids in their urn:uuid: form are refused by predict only', async () => {
    const json = { image_id: `urn:uuid:${world.imageId}`, model_id: `urn:uuid:${BASE_MODEL_ID}` };
    expect((await call(world.healthy, 'POST', '/api/v1/predict', { key: acme.key, json })).status).toBe(200);
    await world.withRegression('J-PRED-URN-ID-REFUSED', async (broken) => {
      const refused = await call(broken, 'POST', '/api/v1/predict', { key: acme.key, json });
      expect(refused.status).toBe(422);
      expect(typeof refused.json<{ detail: unknown }>().detail).toBe('string');
    });
  });

  it('J-PRED-CONCURRENT-DUPLICATE-RUNS: identical predicts sent at once both run', async () => {
    const hold = { organization_id: beta.id, start_delay_ms: 3000 };
    expect((await call(world.mock.url, 'PUT', '/__mock/predictions/progress', { json: hold })).status).toBe(
      200,
    );
    try {
      const predictTwice = async (proxy: RunningProxy) => {
        const upload = await call(proxy, 'POST', '/api/v1/upload', {
          key: beta.key,
          form: multipart('twice.tif'),
        });
        const json = { image_id: upload.json<{ image: { id: string } }>().image.id, model_id: BASE_MODEL_ID };
        const acks = await Promise.all(
          [1, 2].map(() => call(proxy, 'POST', '/api/v1/predict', { key: beta.key, json })),
        );
        return acks.map((ack) => ack.json<{ prediction_id: string; status: string }>());
      };
      const healthy = await predictTwice(world.healthy);
      expect(healthy.map((ack) => ack.status).sort()).toEqual(['skipped', 'submitted']);
      expect(healthy[0].prediction_id).toBe(healthy[1].prediction_id);
      await world.withRegression('J-PRED-CONCURRENT-DUPLICATE-RUNS', async (broken) => {
        const acks = await predictTwice(broken);
        expect(acks.map((ack) => ack.status)).toEqual(['submitted', 'submitted']);
        expect(acks[0].prediction_id).not.toBe(acks[1].prediction_id);
      });
    } finally {
      await call(world.mock.url, 'PUT', '/__mock/predictions/progress', {
        json: { organization_id: beta.id },
      });
    }
  });

  it('J-CAP-ANALYSES-COUNT-IMAGES: at the monthly cap, another model on an image already analysed still runs', async () => {
    await world.withRegression('J-CAP-ANALYSES-COUNT-IMAGES', async (broken) => {
      try {
        const upload = await call(broken, 'POST', '/api/v1/upload', {
          key: tiny.key,
          form: multipart('capped.tif'),
        });
        const imageId = upload.json<{ image: { id: string } }>().image.id;
        await predictAndWait(broken, tiny.key, imageId, BASE_MODEL_ID);
        await predictAndWait(broken, tiny.key, imageId, SPLIT_MODEL_ID);
        const json = { image_id: imageId, model_id: DARK_MODEL_ID };
        expect((await call(world.healthy, 'POST', '/api/v1/predict', { key: tiny.key, json })).status).toBe(
          402,
        );
        const past = await call(broken, 'POST', '/api/v1/predict', { key: tiny.key, json });
        expect(past.status).toBe(200);
        expect(past.json<{ status: string }>().status).toBe('submitted');
      } finally {
        expect((await call(world.mock.url, 'POST', '/__mock/org/reset', { key: tiny.key })).status).toBe(200);
      }
    });
  });

  it('J-CSV-EMPTY-CELL-BLANK-LINE: a one-column selection of an empty column reads as no row', async () => {
    const csvPath = `/api/v1/export/${world.segmentationId}/measurements.csv?columns=tags`;
    const healthy = await call(world.healthy, 'GET', csvPath, { key: acme.key });
    expect(csvRows(healthy.body)).toHaveLength(world.cellCount + 1);
    await world.withRegression('J-CSV-EMPTY-CELL-BLANK-LINE', async (broken) => {
      const csv = await call(broken, 'GET', csvPath, { key: acme.key });
      expect(csv.status).toBe(200);
      expect(csvRows(csv.body)).toEqual(['tags']);
    });
  });

  it('J-EXP-KEPT-FILE-NO-DISPOSITION: an export downloaded again is no longer an attachment', async () => {
    const zipPath = `/api/v1/export/${world.segmentationId}/rois.zip`;
    for (let round = 0; round < 2; round++) {
      const healthy = await call(world.healthy, 'GET', zipPath, { key: acme.key });
      expect(healthy.headers.get('content-disposition')).toMatch(/^attachment/);
    }
    await world.withRegression('J-EXP-KEPT-FILE-NO-DISPOSITION', async (broken) => {
      const first = await call(broken, 'GET', zipPath, { key: acme.key });
      expect(first.headers.get('content-disposition')).toMatch(/^attachment/);
      const again = await call(broken, 'GET', zipPath, { key: acme.key });
      expect(again.status).toBe(200);
      expect(again.headers.get('content-disposition')).toBeNull();
    });
  });

  it('J-SH-CONCURRENT-POST-409: sharing a result from several requests at once refuses all but one', async () => {
    const fresh = await predictAndWait(world.healthy, acme.key, world.imageId, SPLIT_MODEL_ID);
    const other = await predictAndWait(world.healthy, acme.key, world.imageId, DARK_MODEL_ID);
    const shareAtOnce = (proxy: RunningProxy, segmentationId: string) =>
      Promise.all(
        [1, 2, 3].map(() =>
          call(proxy, 'POST', '/api/v1/shares', { key: acme.key, json: { segmentation_id: segmentationId } }),
        ),
      );
    const healthy = await shareAtOnce(world.healthy, fresh.segmentation_id!);
    expect(healthy.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(new Set(healthy.map((r) => r.json<{ id: string }>().id)).size).toBe(1);
    await world.withRegression('J-SH-CONCURRENT-POST-409', async (broken) => {
      const answers = await shareAtOnce(broken, other.segmentation_id!);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    });
  });

  it('J-SH-VIEW-COUNTED-ON-OLD-SHARE: after a revoke and a new share, opens of the new link count on the old one', async () => {
    const reshareAndOpen = async (proxy: RunningProxy) => {
      const share = (path: string, method = 'POST') =>
        call(proxy, method, path, {
          key: acme.key,
          json: method === 'POST' ? { segmentation_id: world.segmentationId } : undefined,
        });
      const first = (await share('/api/v1/shares')).json<{ id: string }>();
      expect((await share(`/api/v1/shares/${first.id}`, 'DELETE')).status).toBe(200);
      const second = (await share('/api/v1/shares')).json<{ id: string; url: string }>();
      expect(second.id).not.toBe(first.id);
      expect((await call(proxy, 'GET', new URL(second.url).pathname)).status).toBe(200);
      return (await share(`/api/v1/shares/${second.id}`, 'GET')).json<{ view_count: number }>();
    };
    expect((await reshareAndOpen(world.healthy)).view_count).toBe(1);
    await world.withRegression('J-SH-VIEW-COUNTED-ON-OLD-SHARE', async (broken) => {
      const live = await reshareAndOpen(broken);
      expect(live.view_count).toBe(0);
    });
  });

  it('J-DEL-UPLOADING-ONLY-ABORTED: deleting an upload in progress leaves the image, failed', async () => {
    const deleteOpened = async (proxy: RunningProxy) => {
      const opened = await call(proxy, 'POST', '/api/v1/upload', {
        key: acme.key,
        json: { name: 'abandoned.tif', size: SAMPLE_TIFF.length },
      });
      const imageId = opened.json<{ image: { id: string } }>().image.id;
      const removed = await call(proxy, 'DELETE', `/api/v1/upload/${imageId}`, { key: acme.key });
      expect(removed.json<{ success: boolean }>()).toEqual({ success: true });
      return call(proxy, 'GET', `/api/v1/upload/${imageId}`, { key: acme.key });
    };
    expect((await deleteOpened(world.healthy)).status).toBe(404);
    await world.withRegression('J-DEL-UPLOADING-ONLY-ABORTED', async (broken) => {
      const left = await deleteOpened(broken);
      expect(left.status).toBe(200);
      expect(left.json<{ upload_status: string }>().upload_status).toBe('failed');
    });
  });
});
