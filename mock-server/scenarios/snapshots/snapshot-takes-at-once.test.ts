/**
 * Each take writes its whole archive to disk before it is sent, and holds it until its answer is
 * read: an instance takes `--snapshot-takes-at-once` at once, and one more answers 503 with
 * Retry-After at once, never queued. A take's place is free again once its answer was read.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ObjectStore } from '../../domain/object-store.js';
import { startMockServer, type RunningMock } from '../../server.js';

const KEY = 'sk_test_acme_4f9a1c7e2b8d4a6f9c3e5b7d1a2c4e6f';
/** While set, a take's read of an object waits for it: the take stays under way. */
let gate: Promise<void> | undefined;

function heldReads(store: ObjectStore): ObjectStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'readObject')
        return async (key: string) => {
          await gate;
          return target.readObject(key);
        };
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

let mock: RunningMock;
beforeAll(async () => {
  mock = await startMockServer(
    { port: 0, logLevel: 'silent', snapshotTakesAtOnce: 1 },
    { wrapStore: heldReads },
  );
  const form = new FormData();
  const tiff = await readFile(path.join(import.meta.dirname, '../../../fixtures/samples/cells.tif'));
  form.append('file', new Blob([tiff]), 'cells.tif');
  const upload = await fetch(`${mock.url}/api/v1/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}` },
    body: form,
  });
  expect(upload.status).toBe(200);
});
afterAll(() => mock?.close());

it('one take past --snapshot-takes-at-once answers 503 with Retry-After; its place is free once read', async () => {
  let open!: () => void;
  gate = new Promise((resolve) => (open = resolve));
  const first = fetch(`${mock.url}/__mock/snapshot`);
  // The first take is under way once it waits on its object.
  await new Promise((resolve) => setTimeout(resolve, 200));
  for (const route of ['/__mock/snapshot', '/__mock/org/snapshot']) {
    const refused = await fetch(`${mock.url}${route}`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(refused.status, route).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/--snapshot-takes-at-once \(1\)/);
  }
  gate = undefined;
  open();
  const taken = await first;
  expect(taken.status).toBe(200);
  await taken.arrayBuffer();
  // Read whole: the next take has the place.
  const again = await fetch(`${mock.url}/__mock/snapshot`);
  expect(again.status).toBe(200);
  await again.arrayBuffer();
});
