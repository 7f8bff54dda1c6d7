import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { ApiClient } from './api-client.js';
import type { CheckContext } from './check.js';
import { Cleanup, ledgerFile } from './cleanup.js';
import { secondSegmentation, trackImage, trackShare, trackSharesMade } from './flows.js';
import { secondModelId } from './model-choice.js';
import { targetFromEnv } from './target.js';
import type { Model } from '../../openapi/generated/client/types.gen.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'flows-'));
  vi.stubEnv('CONTRACT_REPORT_DIR', dir);
});
afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

it('writes a share to the ledger under the target behind Prism, as images are', () => {
  const target = targetFromEnv({
    CONTRACT_BASE_URL: 'http://127.0.0.1:4010',
    CONTRACT_API_KEY: 'sk_test_main',
    CONTRACT_VIA_PRISM: '1',
    CONTRACT_TARGET_LABEL: 'https://staging.example',
  });
  trackShare({ target, cleanup: new Cleanup() } as CheckContext, 'share-1', 'segmentation-1');
  const entry = JSON.parse(readFileSync(ledgerFile(), 'utf8')) as { kind: string; baseUrl: string };
  expect(entry).toMatchObject({ kind: 'share', id: 'share-1', baseUrl: 'https://staging.example' });
});

it('revokes every share at cleanup through the guard that reads it first, in the checks and the partner replay', () => {
  const root = path.join(import.meta.dirname, '..');
  const sources = [
    ...readdirSync(path.join(root, 'checks')).map((f) => path.join(root, 'checks', f)),
    path.join(root, 'partner', 'replay.ts'),
  ].filter((f) => f.endsWith('.ts'));
  const unguarded = sources.filter((f) =>
    /cleanup\.add\(\s*\(\) =>\s*[\w.!]+\.call\('revokeShare'/.test(readFileSync(f, 'utf8')),
  );
  expect(unguarded.map((f) => path.relative(root, f))).toEqual([]);
});

it('writes an image to the ledger under the key of the client that made it, for --cleanup-only', () => {
  const target = targetFromEnv({
    CONTRACT_BASE_URL: 'http://127.0.0.1:4010',
    CONTRACT_API_KEY: 'sk_test_main',
  });
  const [main, other, tiny] = [{}, {}, {}] as ApiClient[];
  const ctx = { target, cleanup: new Cleanup(), api: main, other, tiny } as unknown as CheckContext;
  trackImage(ctx, other!, 'image-of-other');
  trackImage(ctx, tiny!, 'image-of-tiny');
  trackImage(ctx, main!, 'image-of-main');
  const owners = readFileSync(ledgerFile(), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: string; owner: string })
    .filter((entry) => entry.id.startsWith('image-of-'))
    .map((entry) => `${entry.id} ${entry.owner}`);
  expect(owners).toEqual(['image-of-other other', 'image-of-tiny tiny', 'image-of-main main']);
});

/** A client whose answers are given: the models listed, and how every prediction ends. */
function fakeClient(models: object[], ends: string): ApiClient {
  const answer = (operationId: string, body: unknown) => ({
    status: 200,
    body,
    bytes: Buffer.from(''),
    request: { method: 'GET', path: '/', url: '', label: operationId },
  });
  const call = async (operationId: string) => {
    if (operationId === 'listModels') return answer(operationId, models);
    if (operationId === 'createPrediction') return answer(operationId, { prediction_id: 'p2' });
    return answer(operationId, { prediction_id: 'p2', status: ends, segmentation_id: 's2', cell_count: 3 });
  };
  return { call } as unknown as ApiClient;
}

it('skips a second segmentation whose model fails on the image, where it blocked the check', async () => {
  const models = [
    { id: 'm1', name: 'nuclei', kind: 'base' },
    { id: 'm2', name: 'slow custom', kind: 'custom' },
  ];
  const first = { segmentationId: 's1', cellCount: 3, imageId: 'i1', predictionId: 'p1', modelId: 'm1' };
  const ctx = { target: targetFromEnv({}, 'http://127.0.0.1:1') } as CheckContext;
  expect(await secondSegmentation(ctx, first, fakeClient(models, 'FAILED'))).toBeUndefined();
  expect(await secondSegmentation(ctx, first, fakeClient(models, 'COMPLETED'))).toMatchObject({
    segmentationId: 's2',
    modelId: 'm2',
  });
});

it("runs the second segmentation with CONTRACT_MODEL's model, else one of the first's kind", () => {
  const models = [
    { id: 'm1', name: 'nuclei', kind: 'base' },
    { id: 'c1', name: 'custom', kind: 'custom' },
    { id: 'm2', name: 'cyto', kind: 'base' },
  ] as Model[];
  expect(secondModelId(models, 'm1', 'nuclei')).toBe('m1');
  expect(secondModelId(models, 'm1')).toBe('m2');
  expect(secondModelId(models, 'c1')).toBe('m1');
  expect(secondModelId(models.slice(0, 1), 'm1')).toBe('m1');
});

it('revokes at the end each share a POST /shares answer made, a second live link a repeat made included', () => {
  const target = targetFromEnv({
    CONTRACT_BASE_URL: 'http://127.0.0.1:4010',
    CONTRACT_API_KEY: 'sk_test_main',
  });
  const cleanup = new Cleanup();
  const ctx = { target, cleanup } as unknown as CheckContext;
  const made = trackSharesMade(
    ctx,
    [
      { status: 200, body: { id: 'share-at-once-1' } },
      { status: 200, body: { id: 'share-at-once-2' } },
      { status: 200, body: { id: 'share-at-once-1' } },
      { status: 404, body: { id: 'share-at-once-3' } },
      { status: 200, body: {} },
    ],
    'segmentation-at-once',
  );
  expect(made).toBe('share-at-once-1');
  const tracked = readFileSync(ledgerFile(), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { kind: string; id: string; segmentationId?: string })
    .filter((entry) => entry.segmentationId === 'segmentation-at-once');
  expect(tracked.map((entry) => `${entry.kind} ${entry.id}`)).toEqual([
    'share share-at-once-1',
    'share share-at-once-2',
  ]);
});
