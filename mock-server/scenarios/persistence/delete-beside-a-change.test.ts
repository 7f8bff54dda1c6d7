/**
 * A delete that commits while another transaction changes the same row, on PostgreSQL: the row
 * stays deleted. A prediction's run, a complete and an image's conversion each re-read their row
 * and write it back (an upsert); under READ COMMITTED nothing stops a delete from committing between that read
 * and that write unless both take the organization's lock, and the write then inserts the row
 * again: a prediction of a deleted image answering 200 FAILED, an image deleted and `ready` again.
 * An outcome held for polls, put beside such a delete, outlived its prediction the same way.
 *
 * The window is made wide, not waited for by luck: a trigger of the test's own database sleeps
 * inside the write (before its row is touched), and the delete is sent while it sleeps.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, type HttpApi } from '../../../test-support/api-client.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { startTestPostgres, type TestPostgres } from '../../../test-support/test-postgres.js';
import { renderPreset } from '../../../fixtures/generator/synthetic.js';
import { encodeTiff } from '../../../fixtures/generator/tiff-writer.js';
import type { RunningMock } from '../../server.js';

/** How long the write sleeps: the delete is sent a fifth of the way in. */
const WRITE_SLEEPS_MS = 1_500;

let postgres: TestPostgres;
let database: pg.Client;
let mock: RunningMock;
let api: HttpApi;

beforeAll(async () => {
  postgres = await startTestPostgres();
  const url = await postgres.newDatabase();
  mock = await startInstantMock({ databaseUrl: url });
  api = apiClient(mock.url);
  database = new pg.Client({ connectionString: url });
  await database.connect();
}, 120_000);
afterAll(async () => {
  await database?.end();
  await mock?.close();
  await postgres?.stop();
});

/**
 * Makes every write that gives `table` a row with `column` = `value` sleep first, inside its
 * statement; with `DELETE`, every delete of such a row.
 */
async function slowWrites(table: string, column: string, value: string, event = 'INSERT'): Promise<void> {
  await database.query(`
    CREATE OR REPLACE FUNCTION slow_write() RETURNS trigger AS $$
    BEGIN
      IF to_jsonb(CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END) ->> '${column}' = '${value}' THEN
        PERFORM pg_sleep(${WRITE_SLEEPS_MS / 1000});
      END IF;
      RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
    END $$ LANGUAGE plpgsql`);
  await database.query(`DROP TRIGGER IF EXISTS slow_write ON ${table}`);
  await database.query(
    `CREATE TRIGGER slow_write BEFORE ${event} ON ${table} FOR EACH ROW EXECUTE FUNCTION slow_write()`,
  );
}

async function dropSlowWrites(table: string): Promise<void> {
  await database.query(`DROP TRIGGER IF EXISTS slow_write ON ${table}`);
}

/** Resolves once a write is asleep in the trigger: the window is open. */
async function writeAsleep(): Promise<void> {
  const asleep =
    "SELECT 1 FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND query NOT LIKE '%pg_stat_activity%'";
  while ((await database.query(asleep)).rowCount === 0) await sleep(20);
}

it('a prediction whose run turns it STARTED while its image is deleted answers 404 afterwards', async () => {
  const imageId = await api.uploadTiff();
  await slowWrites('predictions', 'status', 'STARTED');
  try {
    const { prediction_id: id } = await api.predict(imageId);
    await sleep(WRITE_SLEEPS_MS / 5);
    expect((await api.call('DELETE', `/api/v1/upload/${imageId}`)).status).toBe(200);
    await sleep(WRITE_SLEEPS_MS);
    await mock.services.idle();
    const read = await api.call('GET', `/api/v1/predict/${id}`);
    expect(read.status, read.text).toBe(404);
  } finally {
    await dropSlowWrites('predictions');
  }
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
  await slowWrites('images', 'upload_status', 'processing');
  try {
    const completed = api.call('POST', `/api/v1/upload/${id}/complete`, {});
    await sleep(WRITE_SLEEPS_MS / 5);
    expect((await api.call('DELETE', `/api/v1/upload/${id}`)).status).toBe(200);
    // committed before the delete, or found deleted: either is an order the two could have had
    expect([202, 404]).toContain((await completed).status);
    await mock.services.idle();
    const read = await api.call('GET', `/api/v1/upload/${id}`);
    expect(read.status, read.text).toBe(404);
  } finally {
    await dropSlowWrites('images');
  }
});

it('an image whose conversion commits ready while it is deleted answers 404 afterwards', async () => {
  const id = await uploadedParts('slow-ready.tif');
  await slowWrites('images', 'upload_status', 'ready');
  try {
    expect((await api.call('POST', `/api/v1/upload/${id}/complete`, {})).status).toBe(202);
    await sleep(WRITE_SLEEPS_MS / 5);
    expect((await api.call('DELETE', `/api/v1/upload/${id}`)).status).toBe(200);
    await sleep(WRITE_SLEEPS_MS);
    await mock.services.idle();
    const read = await api.call('GET', `/api/v1/upload/${id}`);
    expect(read.status, read.text).toBe(404);
  } finally {
    await dropSlowWrites('images');
  }
});

it('an outcome held for polls while its image is deleted leaves no hold behind: the snapshot taken after loads', async () => {
  await api.json('PUT', '/__mock/org/predictions/progress', { complete_after_polls: 3 });
  await slowWrites('poll_holds', 'needed', '3');
  try {
    const imageId = await api.uploadTiff();
    await api.predict(imageId);
    await writeAsleep();
    expect((await api.call('DELETE', `/api/v1/upload/${imageId}`)).status).toBe(200);
    await mock.services.idle();
    const taken = await fetch(`${mock.url}/__mock/snapshot`);
    expect(taken.status).toBe(200);
    const loaded = await fetch(`${mock.url}/__mock/snapshot`, {
      method: 'POST',
      body: await taken.arrayBuffer(),
    });
    expect(loaded.status, await loaded.text()).toBe(200);
  } finally {
    await dropSlowWrites('poll_holds');
    await api.json('PUT', '/__mock/org/predictions/progress', {});
  }
});

it('two deletes of one image at once: one answers 200, the other 404, as one after the other would', async () => {
  const imageId = await api.uploadTiff();
  await slowWrites('images', 'id', imageId, 'DELETE');
  try {
    const first = api.call('DELETE', `/api/v1/upload/${imageId}`);
    await writeAsleep();
    const second = await api.call('DELETE', `/api/v1/upload/${imageId}`);
    expect([(await first).status, second.status]).toEqual([200, 404]);
  } finally {
    await dropSlowWrites('images');
  }
});
