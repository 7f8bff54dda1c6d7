/**
 * Each take writes its whole archive to disk before it is sent, and holds it until its answer is
 * read: an instance takes `--snapshot-takes-at-once` at once, and one more answers 503 with
 * Retry-After at once, never queued; the operator's takes and the organizations' have places of
 * their own, and an organization holds one place at a time. A take's place is free again once its
 * last byte was handed to its answer.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ObjectStore } from '../../domain/object-store.js';
import { startMockServer, type RunningMock } from '../../server.js';
import { BETA_KEY } from '../../../test-support/api-client.js';

const KEY = 'sk_test_acme_4f9a1c7e2b8d4a6f9c3e5b7d1a2c4e6f';
/** While set, a take's read of an object waits for it: the take stays under way. */
let gate: Promise<void> | undefined;
/** Reads of an object begun, and who waits for the next one. */
let reads = 0;
let onRead: (() => void) | undefined;
/** Resolves once `count` reads of an object have begun: that many takes are under way. */
const readsBegun = (count: number) =>
  new Promise<void>((resolve) => {
    onRead = () => {
      if (reads >= count) resolve();
    };
    onRead();
  });

function heldReads(store: ObjectStore): ObjectStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'readObject')
        return async (key: string) => {
          reads++;
          onRead?.();
          await gate;
          return target.readObject(key);
        };
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A mock whose acme organization has an image: its takes read an object, and wait at the gate. */
async function startWithImage(snapshotTakesAtOnce: number): Promise<RunningMock> {
  const started = await startMockServer(
    { port: 0, logLevel: 'silent', snapshotTakesAtOnce },
    { wrapStore: heldReads },
  );
  const form = new FormData();
  const tiff = await readFile(path.join(import.meta.dirname, '../../../fixtures/samples/cells.tif'));
  form.append('file', new Blob([tiff]), 'cells.tif');
  const upload = await fetch(`${started.url}/api/v1/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}` },
    body: form,
  });
  expect(upload.status).toBe(200);
  return started;
}

let mock: RunningMock;
beforeAll(async () => {
  mock = await startWithImage(1);
});
afterAll(() => mock?.close());

const take = (route: string, on = mock, key = KEY) =>
  fetch(`${on.url}${route}`, { headers: { authorization: `Bearer ${key}` } });

async function expectRefused(route: string, who: string, key = KEY) {
  const refused = await take(route, mock, key);
  expect(refused.status, route).toBe(503);
  expect(refused.headers.get('retry-after')).toBe('1');
  const { detail } = (await refused.json()) as { detail: string };
  expect(detail).toMatch(new RegExp(`by ${who}: 1, .*--snapshot-takes-at-once \\(1\\)`));
}

it("one take past --snapshot-takes-at-once answers 503 with Retry-After; organizations' takes never turn the operator's away", async () => {
  let open!: () => void;
  gate = new Promise((resolve) => (open = resolve));
  const organizations = take('/__mock/org/snapshot');
  await readsBegun(1);
  await expectRefused('/__mock/org/snapshot', 'organizations', BETA_KEY);
  const operator = take('/__mock/snapshot');
  await readsBegun(2);
  await expectRefused('/__mock/snapshot', 'the operator');
  gate = undefined;
  open();
  for (const taken of [await organizations, await operator]) {
    expect(taken.status).toBe(200);
    await taken.arrayBuffer();
  }
});

it('a take read whole has freed its place: the next take, right after, has it', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 10; i++) {
    const taken = await take('/__mock/snapshot');
    statuses.push(taken.status);
    await taken.arrayBuffer();
  }
  expect(statuses).toEqual(Array(10).fill(200));
});

it("an organization holds one place at a time: its second take answers 503 while its first streams, and the others' places stay free", async () => {
  const shared = await startWithImage(2);
  let open!: () => void;
  gate = new Promise((resolve) => (open = resolve));
  try {
    const first = take('/__mock/org/snapshot', shared);
    await readsBegun(reads + 1);
    const second = await Promise.race([
      take('/__mock/org/snapshot', shared),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 2000)),
    ]);
    expect(second?.status, 'a second take of the same organization, answered at once').toBe(503);
    expect(second?.headers.get('retry-after')).toBe('1');
    expect(((await second?.json()) as { detail: string }).detail).toMatch(
      /This organization's own snapshot is being taken on this instance/,
    );
    const other = await take('/__mock/org/snapshot', shared, BETA_KEY);
    expect(other.status).toBe(200);
    await other.arrayBuffer();
    gate = undefined;
    open();
    expect((await first).status).toBe(200);
    await (await first).arrayBuffer();
    const again = await take('/__mock/org/snapshot', shared);
    expect(again.status, 'its place is free once its answer is read').toBe(200);
    await again.arrayBuffer();
  } finally {
    gate = undefined;
    open();
    await shared.close();
  }
});
