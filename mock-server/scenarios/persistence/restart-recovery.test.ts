/**
 * After a stop the mock recovers each piece of work once: a conversion or prediction cut short is
 * redone from its committed inputs, one cut short twice fails with a reason (never a third run,
 * never a crash loop), and the start-up sweep leaves no file without a row and no row without its
 * files. The stops are staged by writing the database as a stop would leave it.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { apiClient } from '../../../test-support/api-client.js';
import { DATABASE_FILE } from '../../stores/sqlite/database/open-database.js';
import { DatabaseSync } from '../../stores/sqlite/database/node-sqlite.js';
import { dataLayout, storeLayout } from '../../stores/data-layout.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A data folder with one completed segmentation, the mock stopped; `stage` then edits its database. */
async function stoppedAfterWork() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'restart-'));
  dirs.push(dir);
  const mock = await startInstantMock({ dataDir: dir });
  const done = await apiClient(mock.url).completedSegmentation();
  await mock.close();
  const stage = (sql: string, ...args: unknown[]) => {
    const db = new DatabaseSync(path.join(dir, DATABASE_FILE));
    db.prepare(sql).run(...(args as string[]));
    db.close();
  };
  return { dir, done, stage };
}

async function restarted(dir: string) {
  const mock = await startInstantMock({ dataDir: dir });
  await mock.services.idle();
  return { mock, api: apiClient(mock.url) };
}

describe('work cut short by a stop', () => {
  it('a conversion that was running is redone once; cut short twice, the image fails with a reason', async () => {
    const { dir, done, stage } = await stoppedAfterWork();
    stage(
      "UPDATE images SET upload_status = 'processing', conversion_attempts = 1 WHERE id = ?",
      done.imageId,
    );
    let { mock, api } = await restarted(dir);
    try {
      expect((await api.call('GET', `/api/v1/upload/${done.imageId}`)).body.upload_status).toBe('ready');
      expect((await mock.services.state.images.get(done.imageId))!.conversionAttempts).toBe(2);
    } finally {
      await mock.close();
    }
    stage("UPDATE images SET upload_status = 'processing' WHERE id = ?", done.imageId);
    ({ mock, api } = await restarted(dir));
    try {
      const image = (await api.call('GET', `/api/v1/upload/${done.imageId}`)).body;
      expect(image.upload_status).toBe('failed');
      expect(image.upload_error).toMatch(/interrupted twice .* Upload the image again/);
    } finally {
      await mock.close();
    }
  });

  it('a prediction that was running runs again once; cut short twice, it fails with a reason', async () => {
    const { dir, done, stage } = await stoppedAfterWork();
    const reset =
      "UPDATE predictions SET status = 'STARTED', segmentation_id = NULL, cell_count = NULL WHERE id = ?";
    stage(reset, done.predictionId);
    let { mock, api } = await restarted(dir);
    try {
      const again = await api.pollPrediction(done.predictionId);
      expect(again).toMatchObject({ status: 'COMPLETED', cell_count: done.cellCount });
    } finally {
      await mock.close();
    }
    stage(reset, done.predictionId);
    ({ mock, api } = await restarted(dir));
    try {
      const failed = (await api.call('GET', `/api/v1/predict/${done.predictionId}`)).body;
      expect(failed.status).toBe('FAILED');
      expect(failed.error).toMatch(/interrupted twice/);
    } finally {
      await mock.close();
    }
  });

  it('a prediction run again keeps reading STARTED: its status never goes back to SUBMITTED', async () => {
    const { dir, done, stage } = await stoppedAfterWork();
    stage(
      "UPDATE predictions SET status = 'STARTED', segmentation_id = NULL, cell_count = NULL WHERE id = ?",
      done.predictionId,
    );
    // The rerun waits out a start delay before it starts again: polls read the prediction meanwhile.
    const mock = await startInstantMock({ dataDir: dir, predictionStartDelayMs: 400 });
    try {
      const api = apiClient(mock.url);
      const seen: string[] = [];
      for (let polls = 0; polls < 200 && seen.at(-1) !== 'COMPLETED'; polls++) {
        seen.push((await api.call('GET', `/api/v1/predict/${done.predictionId}`)).body.status);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(seen.at(-1)).toBe('COMPLETED');
      expect(seen.filter((status) => status === 'STARTED').length).toBeGreaterThan(3);
      expect(seen).not.toContain('SUBMITTED');
    } finally {
      await mock.close();
    }
  });
});

describe('the start-up sweep', () => {
  it('removes files no row points at (open uploads included), and fails an image whose preview is gone', async () => {
    const { dir, done } = await stoppedAfterWork();
    const layout = dataLayout(dir);
    const store = storeLayout(layout.store);
    const orphans = [
      layout.derivedFilesOf('7f1d2c3b-0000-4000-8000-000000000000').folder,
      layout.segmentationOf('7f1d2c3b-0000-4000-8000-000000000001').folder,
      layout.segmentationStaging('7f1d2c3b-0000-4000-8000-000000000002').folder,
      path.dirname(store.objectFile('objects/7f1d2c3b-0000-4000-8000-000000000003/original.tif')),
      store.uploadFolder('AbCdEfGhIjKlMnOpQrStUvWx'),
    ];
    for (const orphan of orphans) {
      mkdirSync(orphan, { recursive: true });
      writeFileSync(path.join(orphan, 'leftover'), 'x');
    }
    rmSync(layout.derivedFilesOf(done.imageId).preview);
    const { mock, api } = await restarted(dir);
    try {
      for (const orphan of orphans) expect(existsSync(orphan), orphan).toBe(false);
      const image = (await api.call('GET', `/api/v1/upload/${done.imageId}`)).body;
      expect(image.upload_status).toBe('failed');
      expect(image.upload_error).toMatch(/lost/);
      // the segmentation keeps its own files and still exports
      expect(
        (
          await fetch(`${mock.url}/api/v1/export/${done.segmentationId}/rois.geojson`, {
            headers: { authorization: 'Bearer sk_test_acme_4f9a1c7e2b8d4a6f9c3e5b7d1a2c4e6f' },
          })
        ).status,
      ).toBe(200);
    } finally {
      await mock.close();
    }
  });

  it('drops a segmentation whose outlines are gone and fails its prediction with a reason', async () => {
    const { dir, done } = await stoppedAfterWork();
    rmSync(dataLayout(dir).segmentationOf(done.segmentationId).result);
    const { mock, api } = await restarted(dir);
    try {
      const prediction = (await api.call('GET', `/api/v1/predict/${done.predictionId}`)).body;
      expect(prediction.status).toBe('FAILED');
      expect(prediction.error).toMatch(/lost/);
      expect(await mock.services.state.segmentations.get(done.segmentationId)).toBeUndefined();
    } finally {
      await mock.close();
    }
  });
});
