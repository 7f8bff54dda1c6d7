/**
 * The start-up sweep on a folder other instances work in: what no row refers to is removed only
 * once it has not changed for the grace period, so another instance's files in progress (an object
 * stored before its row commits, an open upload, a conversion's previews, a staged segmentation,
 * a single-request upload streaming in) survive an instance starting beside them.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { dataLayout, storeLayout } from '../data-layout.js';
import { openDatabase } from '../sqlite/database/open-database.js';
import { EmbeddedObjectStore } from '../object-store/embedded-store.js';
import { SqliteStateStore } from '../sqlite/sqlite-state-store.js';
import { sweepDataFolder } from './startup-sweep.js';
import { fileSystemNow } from './sweep-age.js';

const HOUR = 3_600_000;
const ID = '7f1d2c3b-0000-4000-8000-00000000000';

let root: string;
let state: SqliteStateStore;
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'sweep-grace-'));
  for (const folder of dataLayout(root).folders) mkdirSync(folder, { recursive: true });
  state = new SqliteStateStore(openDatabase(root));
});
afterEach(async () => {
  await state.close();
  rmSync(root, { recursive: true, force: true });
});

/** Every unreferenced kind of file another instance may be writing right now. */
async function filesInProgress(store: EmbeddedObjectStore): Promise<string[]> {
  const layout = dataLayout(root);
  const files = [
    path.join(layout.derivedFilesOf(`${ID}1`).folder, 'preview.png'),
    path.join(layout.segmentationOf(`${ID}2`).folder, 'result.json'),
    path.join(layout.segmentationStaging(`${ID}3`).folder, 'result.json'),
    path.join(layout.incoming, 'upload-streaming.tmp'),
    path.join(storeLayout(layout.store).tmp, 'object-123.tmp'),
  ];
  for (const file of files) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, 'x');
  }
  await store.putObject(`objects/${ID}4/original.tif`, Readable.from([Buffer.from('tiff')]));
  const plan = { totalSize: 10, partSize: 10, partCount: 1 };
  const { uploadId } = await store.createMultipartUpload(`objects/${ID}5/original.tif`, plan);
  return [
    ...files,
    store.objectPath(`objects/${ID}4/original.tif`),
    storeLayout(layout.store).uploadFolder(uploadId),
  ];
}

/** Sets every file and folder under `dir` as last changed `byMs` ago. */
function ageEverything(dir: string, byMs: number): void {
  const when = new Date(Date.now() - byMs);
  const visit = (at: string) => {
    if (statSync(at).isDirectory()) for (const entry of readdirSync(at)) visit(path.join(at, entry));
    utimesSync(at, when, when);
  };
  visit(dir);
}

async function sweep(graceMs: number) {
  const store = new EmbeddedObjectStore({
    dataDir: dataLayout(root).store,
    storageUrl: 'http://x/storage',
  });
  return sweepDataFolder(state, store, dataLayout(root), () => new Date().toISOString(), {
    startedAt: await fileSystemNow(root),
    graceMs,
  });
}

it('with a grace period, keeps fresh unreferenced files and removes them once they are older', async () => {
  const store = new EmbeddedObjectStore({ dataDir: dataLayout(root).store, storageUrl: 'http://x/storage' });
  const files = await filesInProgress(store);
  expect((await sweep(HOUR)).filesRemoved).toBe(0);
  for (const file of files) expect(existsSync(file), file).toBe(true);

  ageEverything(root, 2 * HOUR);
  expect((await sweep(HOUR)).filesRemoved).toBeGreaterThanOrEqual(files.length);
  for (const file of files) expect(existsSync(file), file).toBe(false);
});

it('without one (a folder one process owns), removes unreferenced files at once, as before', async () => {
  const store = new EmbeddedObjectStore({ dataDir: dataLayout(root).store, storageUrl: 'http://x/storage' });
  const files = await filesInProgress(store);
  await sweep(0);
  for (const file of files) expect(existsSync(file), file).toBe(false);
});

it('leaves what changed after it started, grace or not (work of the mock answering while it runs)', async () => {
  const store = new EmbeddedObjectStore({ dataDir: dataLayout(root).store, storageUrl: 'http://x/storage' });
  const startedAt = await fileSystemNow(root);
  const files = await filesInProgress(store);
  // written after the sweep's start (file times are coarse: set them past it)
  const later = new Date(startedAt + 1000);
  const visit = (at: string) => {
    if (statSync(at).isDirectory()) for (const entry of readdirSync(at)) visit(path.join(at, entry));
    utimesSync(at, later, later);
  };
  visit(root);
  const report = await sweepDataFolder(state, store, dataLayout(root), () => new Date().toISOString(), {
    startedAt,
  });
  expect(report.filesRemoved).toBe(0);
  for (const file of files) expect(existsSync(file), file).toBe(true);
});
