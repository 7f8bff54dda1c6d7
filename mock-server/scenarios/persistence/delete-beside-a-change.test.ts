/**
 * A delete that commits while another transaction changes the same row, on PostgreSQL: the row
 * stays deleted. A prediction's run, a complete and an image's conversion each re-read their row
 * and write it back (an upsert); under READ COMMITTED nothing stops a delete from committing between
 * that read and that write unless both take the organization's lock, and the write then inserts the
 * row again: a prediction of a deleted image answering 200 STARTED for good, an image deleted and
 * back. An outcome held for polls, put beside such a delete, outlived its prediction the same way.
 * Each window is held open (test-support/held-open.ts) while the delete is sent.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, type HttpApi } from '../../../test-support/api-client.js';
import {
  columnIs,
  holdWrites,
  mockOnPostgres,
  type MockOnPostgres,
  writeAsleep,
} from '../../../test-support/held-open.js';
import { renderPreset } from '../../../fixtures/generator/synthetic.js';
import { encodeTiff } from '../../../fixtures/generator/tiff-writer.js';

let sandbox: MockOnPostgres;
let api: HttpApi;

beforeAll(async () => {
  sandbox = await mockOnPostgres();
  api = apiClient(sandbox.mock.url);
}, 120_000);
afterAll(() => sandbox?.stop());

/** Runs `work` with the writes `condition` names on `table` held open, then lets them go. */
async function whileHeld(table: string, condition: string, work: () => Promise<void>, event?: 'DELETE') {
  const release = await holdWrites(sandbox.database, table, condition, event);
  try {
    await work();
  } finally {
    await release();
  }
}

it('a prediction whose run turns it STARTED while its image is deleted answers 404 afterwards', async () => {
  const imageId = await api.uploadTiff();
  await whileHeld('predictions', columnIs('status', 'STARTED'), async () => {
    const { prediction_id: id } = await api.predict(imageId);
    await writeAsleep(sandbox.database);
    expect((await api.call('DELETE', `/api/v1/upload/${imageId}`)).status).toBe(200);
    await sandbox.mock.services.idle();
    const read = await api.call('GET', `/api/v1/predict/${id}`);
    expect(read.status, read.text).toBe(404);
  });
});

/** A resumable upload with its one part sent, ready to complete: its image id. */
async function uploadedParts(name: string): Promise<string> {
  const { plane } = renderPreset('easy-8bit-256');
  const bytes = encodeTiff([
    { width: plane.width, height: plane.height, bitsPerSample: 8, data: plane.data },
  ]);
  const opened = await api.json<{ image: { id: string }; upload: { urls: Array<{ url: string }> } }>(
    'POST',
    '/api/v1/upload',
    { name, size: bytes.length },
  );
  expect(opened.upload.urls).toHaveLength(1);
  expect((await fetch(opened.upload.urls[0].url, { method: 'PUT', body: bytes })).status).toBe(200);
  return opened.image.id;
}

it('an image whose complete commits processing while it is deleted answers 404 afterwards', async () => {
  const id = await uploadedParts('slow-complete.tif');
  await whileHeld('images', columnIs('upload_status', 'processing'), async () => {
    const completed = api.call('POST', `/api/v1/upload/${id}/complete`, {});
    await writeAsleep(sandbox.database);
    expect((await api.call('DELETE', `/api/v1/upload/${id}`)).status).toBe(200);
    // committed before the delete, or found deleted: either is an order the two could have had
    expect([202, 404]).toContain((await completed).status);
    await sandbox.mock.services.idle();
    const read = await api.call('GET', `/api/v1/upload/${id}`);
    expect(read.status, read.text).toBe(404);
  });
});

it('an image whose conversion commits ready while it is deleted answers 404 afterwards', async () => {
  const id = await uploadedParts('slow-ready.tif');
  await whileHeld('images', columnIs('upload_status', 'ready'), async () => {
    expect((await api.call('POST', `/api/v1/upload/${id}/complete`, {})).status).toBe(202);
    await writeAsleep(sandbox.database);
    expect((await api.call('DELETE', `/api/v1/upload/${id}`)).status).toBe(200);
    await sandbox.mock.services.idle();
    const read = await api.call('GET', `/api/v1/upload/${id}`);
    expect(read.status, read.text).toBe(404);
  });
});

it('an outcome held for polls while its image is deleted leaves no hold behind: the snapshot taken after loads', async () => {
  await api.json('PUT', '/__mock/org/predictions/progress', { complete_after_polls: 3 });
  try {
    await whileHeld('poll_holds', columnIs('needed', 3), async () => {
      const imageId = await api.uploadTiff();
      await api.predict(imageId);
      await writeAsleep(sandbox.database);
      expect((await api.call('DELETE', `/api/v1/upload/${imageId}`)).status).toBe(200);
      await sandbox.mock.services.idle();
    });
    const taken = await fetch(`${sandbox.mock.url}/__mock/snapshot`);
    expect(taken.status).toBe(200);
    const loaded = await fetch(`${sandbox.mock.url}/__mock/snapshot`, {
      method: 'POST',
      body: await taken.arrayBuffer(),
    });
    expect(loaded.status, await loaded.text()).toBe(200);
  } finally {
    await api.json('PUT', '/__mock/org/predictions/progress', {});
  }
});

it('two deletes of one image at once: one answers 200, the other 404, as one after the other would', async () => {
  const imageId = await api.uploadTiff();
  await whileHeld(
    'images',
    columnIs('id', imageId),
    async () => {
      const first = api.call('DELETE', `/api/v1/upload/${imageId}`);
      await writeAsleep(sandbox.database);
      const second = await api.call('DELETE', `/api/v1/upload/${imageId}`);
      expect([(await first).status, second.status]).toEqual([200, 404]);
    },
    'DELETE',
  );
});
