/**
 * The start-up sweep runs while the mock answers: a data folder whose sweep is slow (a store that
 * answers slowly, as a remote one does) is answered before the sweep ends, records the sweep has
 * not reached answer as they are, work started meanwhile is not swept away, and the sweep's effects
 * still happen once it ends.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { apiClient } from '../../../test-support/api-client.js';
import { startMockServer } from '../../server.js';
import type { ObjectStore, ReferencedByState } from '../../domain/object-store.js';
import { dataLayout } from '../../stores/data-layout.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A store whose sweep waits until `release` is called: the sweep cannot end before the test says so. */
function heldSweep(): {
  wrap: (store: ObjectStore) => ObjectStore;
  release: () => void;
  reached: Promise<void>;
} {
  let release!: () => void;
  let reachedIt!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const reached = new Promise<void>((resolve) => (reachedIt = resolve));
  const wrap = (store: ObjectStore): ObjectStore =>
    new Proxy(store, {
      get(target, name, receiver) {
        if (name !== 'sweepUnreferenced') return Reflect.get(target, name, receiver) as unknown;
        return async (referenced: ReferencedByState) => {
          reachedIt();
          await gate;
          return target.sweepUnreferenced(referenced);
        };
      },
    });
  return { wrap, release, reached };
}

it('answers before a slow sweep ends, leaves new work alone, and the sweep still fails what lost its files', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'background-sweep-'));
  dirs.push(dir);
  const first = await startInstantMock({ dataDir: dir });
  const done = await apiClient(first.url).completedSegmentation();
  await first.close();
  const layout = dataLayout(dir);
  const orphan = layout.derivedFilesOf('7f1d2c3b-0000-4000-8000-000000000000').folder;
  mkdirSync(orphan, { recursive: true });
  writeFileSync(path.join(orphan, 'leftover'), 'x');
  rmSync(layout.derivedFilesOf(done.imageId).preview);

  const sweep = heldSweep();
  const mock = await startMockServer(
    { port: 0, logLevel: 'silent', predictionStartDelayMs: 0, predictionRunDelayMs: 0, dataDir: dir },
    { wrapStore: sweep.wrap },
  );
  try {
    const api = apiClient(mock.url);
    await sweep.reached;
    // The sweep is held: the mock answers, and the image it has not reached yet is as it was.
    expect((await api.call('GET', '/api/v1/models')).status).toBe(200);
    expect((await api.call('GET', `/api/v1/upload/${done.imageId}`)).body.upload_status).toBe('ready');
    // Work done while the sweep runs (its files written after it started) is not its to remove.
    const fresh = await api.uploadTiff();
    expect(existsSync(layout.derivedFilesOf(fresh).preview)).toBe(true);

    sweep.release();
    await mock.services.idle();
    const image = (await api.call('GET', `/api/v1/upload/${done.imageId}`)).body;
    expect(image.upload_status).toBe('failed');
    expect(image.upload_error).toMatch(/lost/);
    expect(existsSync(orphan)).toBe(false);
    expect((await api.call('GET', `/api/v1/upload/${fresh}`)).body.upload_status).toBe('ready');
    expect(existsSync(layout.derivedFilesOf(fresh).preview)).toBe(true);
  } finally {
    sweep.release();
    await mock.close();
  }
});

it('a mock closed while its sweep runs stops the sweep and closes', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'background-sweep-'));
  dirs.push(dir);
  const first = await startInstantMock({ dataDir: dir });
  await first.close();
  const sweep = heldSweep();
  const mock = await startMockServer(
    { port: 0, logLevel: 'silent', dataDir: dir },
    { wrapStore: sweep.wrap },
  );
  await sweep.reached;
  const closed = mock.close();
  sweep.release();
  await closed;
});
