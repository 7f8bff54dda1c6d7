import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { launchMock, REPO_ROOT, type LaunchedMock } from './launch-mock.js';
import { startRegressionProxy, type RunningProxy } from './regression-proxy.js';
import { seedOrganizations, type Area, type Regression } from './regression.js';

/**
 * What each set's test shares: a real mock with one completed segmentation of the sample, read
 * through a no-op proxy (the healthy answers), the client call they make, and a proxy that carries
 * one regression of the set, whose hooks must never throw.
 */

export const AREAS: Area[] = [
  'auth',
  'upload',
  'resumable',
  'models',
  'predictions',
  'caps',
  'exports',
  'shares',
  'deletes',
];
/**
 * A set's regressions well formed: at least `least` of them, unique ids with the set's letter,
 * every area, a description, the sentence each breaks, a hook, and at least `statedShare` of them
 * breaking a sentence the interface states (each quoting it, when `quoted`).
 */
export function expectWellFormed(
  set: readonly Regression[],
  rules: { letter: string; least: number; statedShare: number; quoted?: boolean },
): void {
  expect(set.length).toBeGreaterThanOrEqual(rules.least);
  expect(new Set(set.map((r) => r.id)).size).toBe(set.length);
  for (const r of set) {
    expect(r.id, r.id).toMatch(new RegExp(`^${rules.letter}-[A-Z]+-[A-Z0-9-]+$`));
    expect(AREAS, r.id).toContain(r.area);
    expect(r.description.length, r.id).toBeGreaterThan(10);
    expect(r.violates.trim().length, r.id).toBeGreaterThan(10);
    expect(['interface', 'document'], r.id).toContain(r.statedIn);
    expect(r.request ?? r.response, r.id).toBeDefined();
    if (rules.quoted && r.statedIn === 'interface') expect(r.violates, r.id).toMatch(/"/);
  }
  expect(new Set(set.map((r) => r.area))).toEqual(new Set(AREAS));
  expect(set.filter((r) => r.statedIn === 'interface').length).toBeGreaterThanOrEqual(
    set.length * rules.statedShare,
  );
}

export const BASE_MODEL_ID = '078e62ee-4b5a-4a1e-8322-01910425db58';
export const SAMPLE_TIFF = readFileSync(path.join(REPO_ROOT, 'fixtures/samples/cells.tif'));

export interface Reply {
  status: number;
  headers: Headers;
  body: Buffer;
  json<T = Record<string, unknown>>(): T;
}

export async function call(
  proxy: RunningProxy | string,
  method: string,
  requestPath: string,
  init: { key?: string; json?: unknown; form?: FormData; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const root = typeof proxy === 'string' ? proxy : proxy.url;
  const answer = await fetch(root + requestPath, {
    method,
    headers,
    body: init.form ?? (init.json === undefined ? undefined : JSON.stringify(init.json)),
  });
  const body = Buffer.from(await answer.arrayBuffer());
  return {
    status: answer.status,
    headers: answer.headers,
    body,
    json: <T>() => JSON.parse(body.toString('utf8')) as T,
  };
}

/** A resumable upload of the sample TIFF, opened and every part PUT, not completed: its image id. */
export async function uploadedParts(proxy: RunningProxy, key: string): Promise<string> {
  const opened = await call(proxy, 'POST', '/api/v1/upload', {
    key,
    json: { name: 'parts.tif', size: SAMPLE_TIFF.length },
  });
  const { image, upload } = opened.json<{
    image: { id: string };
    upload: { part_size: number; urls: Array<{ url: string }> };
  }>();
  for (const [index, part] of upload.urls.entries()) {
    const put = await fetch(part.url, {
      method: 'PUT',
      body: SAMPLE_TIFF.subarray(index * upload.part_size, (index + 1) * upload.part_size),
    });
    expect(put.status).toBe(200);
  }
  return image.id;
}

/** The mock every test of a set reads, with the sample uploaded and segmented by the base model. */
export interface SetWorld {
  mock: LaunchedMock;
  healthy: RunningProxy;
  imageId: string;
  predictionId: string;
  segmentationId: string;
  cellCount: number;
  /** Runs `check` with a proxy that carries the regression `id`, and asserts its hooks never threw. */
  withRegression(id: string, check: (broken: RunningProxy) => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

export async function startSetWorld(set: readonly Regression[]): Promise<SetWorld> {
  const mock = await launchInstantMock();
  const healthy = await startRegressionProxy(mock.url);
  const [acme] = seedOrganizations();
  const form = new FormData();
  form.append('file', new Blob([SAMPLE_TIFF], { type: 'image/tiff' }), 'cells.tif');
  const upload = await call(healthy, 'POST', '/api/v1/upload', { key: acme.key, form });
  expect(upload.status).toBe(200);
  const imageId = upload.json<{ image: { id: string } }>().image.id;
  const ack = await call(healthy, 'POST', '/api/v1/predict', {
    key: acme.key,
    json: { image_id: imageId, model_id: BASE_MODEL_ID },
  });
  const predictionId = ack.json<{ prediction_id: string }>().prediction_id;
  let done: { segmentation_id?: string; cell_count?: number } = {};
  for (let attempt = 0; attempt < 100 && done.segmentation_id === undefined; attempt++) {
    const prediction = (
      await call(healthy, 'GET', `/api/v1/predict/${predictionId}`, { key: acme.key })
    ).json<{ status: string; segmentation_id?: string; cell_count?: number }>();
    if (prediction.status === 'COMPLETED') done = prediction;
    else await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(done.segmentation_id).toBeDefined();
  return {
    mock,
    healthy,
    imageId,
    predictionId,
    segmentationId: done.segmentation_id!,
    cellCount: done.cell_count!,
    async withRegression(id, check) {
      const regression = set.find((r) => r.id === id);
      if (!regression) throw new Error(`no regression ${id} in this set`);
      const broken = await startRegressionProxy(mock.url, regression);
      try {
        await check(broken);
        expect(broken.hookErrors).toEqual([]);
      } finally {
        await broken.close();
      }
    },
    async close() {
      await healthy.close();
      await mock.stop();
    },
  };
}

/** A mock whose predictions finish at once: the polling loop is not what these tests are about. */
async function launchInstantMock(): Promise<LaunchedMock> {
  const saved = { start: process.env.PREDICTION_START_DELAY_MS, run: process.env.PREDICTION_RUN_DELAY_MS };
  process.env.PREDICTION_START_DELAY_MS = '0';
  process.env.PREDICTION_RUN_DELAY_MS = '0';
  try {
    return await launchMock();
  } finally {
    for (const [name, value] of [
      ['PREDICTION_START_DELAY_MS', saved.start],
      ['PREDICTION_RUN_DELAY_MS', saved.run],
    ] as const)
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  }
}
