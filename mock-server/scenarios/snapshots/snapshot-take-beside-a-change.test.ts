/**
 * A snapshot taken while other requests commit, on PostgreSQL: the archive is the state at one
 * moment, so it loads. The take reads table after table, organization after organization; at READ
 * COMMITTED each read saw what had committed by then, and a custom model added after the models
 * were read, with a prediction of it committed before that organization's predictions were read,
 * made an archive whose prediction names a model it does not hold: refused when loaded.
 *
 * The window is made wide, not waited for by luck: the test's own connection holds the `shares`
 * table (ACCESS EXCLUSIVE), so the take waits at the first organization's shares, after the models
 * were read; the requests, which touch no share, are sent while it waits.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, createBigOrg, HttpApi } from '../../../test-support/api-client.js';
import { mockOnPostgres, type MockOnPostgres } from '../../../test-support/held-open.js';

let sandbox: MockOnPostgres;

beforeAll(async () => {
  sandbox = await mockOnPostgres();
}, 120_000);
afterAll(() => sandbox?.stop());

/** Resolves once a statement waits for the `shares` table the test holds. */
async function takeWaiting(): Promise<void> {
  const waiting = "SELECT 1 FROM pg_locks WHERE NOT granted AND relation = 'shares'::regclass";
  while ((await sandbox.database.query(waiting)).rowCount === 0) await sleep(20);
}

it('a snapshot taken while a model and its prediction are added loads', async () => {
  const org = await createBigOrg(sandbox.mock.url, 'Late lab');
  const api = apiClient(sandbox.mock.url, org.key);
  const imageId = await api.uploadTiff();
  await sandbox.database.query('BEGIN');
  await sandbox.database.query('LOCK TABLE shares IN ACCESS EXCLUSIVE MODE');
  let taken: Promise<Response>;
  try {
    taken = fetch(`${sandbox.mock.url}/__mock/snapshot`);
    await takeWaiting();
    const model = await new HttpApi(sandbox.mock.url, null).json<{ id: string }>(
      'POST',
      `/__mock/organizations/${org.id}/models`,
      { name: 'late', engine: 'threshold' },
    );
    await api.predict(imageId, model.id);
  } finally {
    await sandbox.database.query('COMMIT');
  }
  const archive = await (await taken).arrayBuffer();
  const loaded = await fetch(`${sandbox.mock.url}/__mock/snapshot`, { method: 'POST', body: archive });
  expect(loaded.status, await loaded.text()).toBe(200);
});
