/**
 * `--cleanup-only` against a target that misbehaves: it touches only what its ledger lists. Ids
 * come from a target's answers and may be hostile (a path in them), may name someone else's image,
 * a delete may be redirected elsewhere, and a ledger may hold another target's leftovers, which the
 * keys in the environment are not for.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { cleanupOnly } from './cleanup-only.js';
import { ApiClient } from './harness/api-client.js';
import { Cleanup } from './harness/cleanup.js';
import { deleteOwnImage, revokeOwnShare } from './harness/flows.js';
import { sharedContract } from './harness/openapi-contract.js';
import { targetFromEnv } from './harness/target.js';

const PREFIX = 'contract-20261129aaaa-';
const NAMES: Record<string, string> = {
  mine: `${PREFIX}cells.tif`,
  redirected: `${PREFIX}x.tif`,
  theirs: 'plate-7.tif',
  record: `${PREFIX}record.tif`,
  locked: `${PREFIX}locked.tif`,
  unavailable: `${PREFIX}unavailable.tif`,
};
/** Shares by id, each of the segmentation it reads as. */
const SHARES: Record<string, string> = {
  'share-mine': 'seg-mine',
  'share-theirs': 'seg-else',
  'share-busy': 'seg-mine',
};
/**
 * Read answers that are unavailability, not an answer about whose the image is; with a wait of the
 * target's own choosing, not the 1 s the control plane's injected faults carry.
 */
const BUSY: Record<string, number> = { busy: 429, down: 503 };
const seen: string[] = [];
let server: http.Server;
let url: string;
let dir: string;

/** What the check would fail for, but the model's 422 for this fixture's ids, which are words, not UUIDs. */
const beyondWordIds = (violations: string[]) => violations.filter((v) => !v.includes('not a valid UUID'));

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
    const id = decodeURIComponent(req.url!.split('/').pop()!);
    if (req.method === 'GET' && id in BUSY) {
      res.writeHead(BUSY[id]!, { 'content-type': 'application/json', 'retry-after': '30' });
      return res.end('{}');
    }
    if (req.method === 'DELETE' && ['unavailable', 'share-busy'].includes(id)) {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '30' });
      return res.end('{"detail":"busy"}');
    }
    if (req.method === 'GET' && id === 'record' && req.url!.includes('/upload/')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end('{}');
    }
    if (id in SHARES) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ id, segmentation_id: SHARES[id] }));
    }
    if (req.method === 'GET' && id === 'nameless') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{}');
    }
    if (req.method === 'GET' && id in NAMES) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ id, name: NAMES[id] }));
    }
    if (req.method === 'DELETE' && id === 'locked') {
      res.writeHead(409, { 'content-type': 'application/json' });
      return res.end('{"detail":"busy"}');
    }
    if (req.method === 'DELETE' && id === 'redirected') {
      res.writeHead(307, { location: '/api/v1/image/theirs' });
      return res.end();
    }
    res.writeHead(req.method === 'DELETE' && ['mine', 'record'].includes(id) ? 200 : 404, {
      'content-type': 'application/json',
    });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = mkdtempSync(path.join(os.tmpdir(), 'cleanup-only-'));
  vi.stubEnv('CONTRACT_REPORT_DIR', dir);
  vi.stubEnv('CONTRACT_API_KEY', 'sk_test_main');
  vi.spyOn(console, 'log').mockImplementation(() => {});
});
afterAll(async () => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

it('deletes only the images of the ledger that the run named, on the target the keys are for', async () => {
  const entry = (id: string, baseUrl = url) =>
    JSON.stringify({ kind: 'image', id, owner: 'main', baseUrl, namePrefix: PREFIX, at: '' });
  const ledger = path.join(dir, 'contract-ledger.jsonl');
  const ids = ['mine', 'theirs', 'redirected', '../shares/someones'];
  writeFileSync(
    ledger,
    [...ids.map((id) => entry(id)), entry('elsewhere', 'https://other.example')].join('\n'),
  );

  expect(await cleanupOnly(url)).toBe(1);
  expect(seen).toEqual([
    'GET /api/v1/upload/mine Bearer sk_test_main',
    'DELETE /api/v1/image/mine Bearer sk_test_main',
    'GET /api/v1/upload/theirs Bearer sk_test_main',
    'GET /api/v1/upload/redirected Bearer sk_test_main',
    'DELETE /api/v1/image/redirected Bearer sk_test_main',
    'GET /api/v1/upload/..%2Fshares%2Fsomeones Bearer sk_test_main',
    'GET /api/v1/image/..%2Fshares%2Fsomeones Bearer sk_test_main',
  ]);
  const kept = readFileSync(ledger, 'utf8').split('\n').filter(Boolean);
  expect(kept.map((line) => (JSON.parse(line) as { id: string }).id)).toEqual([
    'theirs',
    'redirected',
    'elsewhere',
  ]);
});

it("leaves an image alone at a check's end when its name is not the run's, and fails the check saying so", async () => {
  const target = targetFromEnv({ CONTRACT_BASE_URL: url, CONTRACT_API_KEY: 'sk_test_main' });
  const client = new ApiClient(sharedContract(), target, target.keys.main);
  seen.length = 0;
  await expect(deleteOwnImage(PREFIX, client, 'theirs')).rejects.toThrow();
  await expect(deleteOwnImage(PREFIX, client, 'nameless')).rejects.toThrow();
  await deleteOwnImage(PREFIX, client, 'mine');
  expect(seen.map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual([
    'GET /api/v1/upload/theirs',
    'GET /api/v1/upload/nameless',
    'GET /api/v1/upload/mine',
    'DELETE /api/v1/image/mine',
  ]);
  expect(client.violations.filter((v) => v.startsWith('cleanup:'))).toEqual([
    `cleanup: image theirs, which an answer named as made by this run, is named 'plate-7.tif', without the run's prefix ${PREFIX}: not deleted`,
    `cleanup: image nameless, which an answer named as made by this run, read 200 with no name, without the run's prefix ${PREFIX}: not deleted`,
  ]);
});

it('reads a record by GET /image/{id} before calling it gone; a busy read keeps the image for --cleanup-only without failing the check', async () => {
  const target = targetFromEnv({ CONTRACT_BASE_URL: url, CONTRACT_API_KEY: 'sk_test_main' });
  const client = new ApiClient(sharedContract(), target, target.keys.main);
  seen.length = 0;
  await deleteOwnImage(PREFIX, client, 'record');
  await expect(deleteOwnImage(PREFIX, client, 'busy')).rejects.toThrow(/cleanup-only/);
  await expect(deleteOwnImage(PREFIX, client, 'down')).rejects.toThrow(/cleanup-only/);
  await expect(deleteOwnImage(PREFIX, client, 'locked')).rejects.toThrow(/DELETE answered 409/);
  expect(seen.map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual([
    'GET /api/v1/upload/record',
    'GET /api/v1/image/record',
    'DELETE /api/v1/image/record',
    'GET /api/v1/upload/busy',
    'GET /api/v1/upload/down',
    'GET /api/v1/upload/locked',
    'DELETE /api/v1/image/locked',
  ]);
  expect(beyondWordIds(client.violations)).toEqual([]);
});

it('keeps an image or share whose DELETE is refused in the ledger, not done; a 503 with Retry-After fails no check', async () => {
  const target = targetFromEnv({ CONTRACT_BASE_URL: url, CONTRACT_API_KEY: 'sk_test_main' });
  const client = new ApiClient(sharedContract(), target, target.keys.main);
  const ledger = path.join(dir, 'contract-ledger.jsonl');
  writeFileSync(ledger, '');
  const cleanup = new Cleanup();
  cleanup.add(() => deleteOwnImage(PREFIX, client, 'unavailable'), {
    kind: 'image',
    id: 'unavailable',
    owner: 'main',
    baseUrl: url,
    namePrefix: PREFIX,
  });
  cleanup.add(() => revokeOwnShare(client, 'share-busy', 'seg-mine'), {
    kind: 'share',
    id: 'share-busy',
    owner: 'main',
    baseUrl: url,
    segmentationId: 'seg-mine',
  });
  seen.length = 0;
  await cleanup.run();
  expect(seen.map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual([
    'GET /api/v1/shares/share-busy',
    'DELETE /api/v1/shares/share-busy',
    'GET /api/v1/upload/unavailable',
    'DELETE /api/v1/image/unavailable',
  ]);
  expect(readFileSync(ledger, 'utf8')).not.toContain('"done":true');
  expect(beyondWordIds(client.violations)).toEqual([]);
});

it("revokes a share only when it reads as of the segmentation the run asked it for, at a check's end and by --cleanup-only", async () => {
  const target = targetFromEnv({ CONTRACT_BASE_URL: url, CONTRACT_API_KEY: 'sk_test_main' });
  const client = new ApiClient(sharedContract(), target, target.keys.main);
  seen.length = 0;
  await revokeOwnShare(client, 'share-mine', 'SEG-MINE');
  await expect(revokeOwnShare(client, 'share-theirs', 'seg-mine')).rejects.toThrow();
  expect(client.violations.filter((v) => v.startsWith('cleanup:'))).toEqual([
    'cleanup: share share-theirs, which an answer named as made by this run for segmentation seg-mine, reads as of "seg-else": not revoked',
  ]);
  const entry = (id: string) =>
    JSON.stringify({ kind: 'share', id, owner: 'main', baseUrl: url, segmentationId: 'seg-mine', at: '' });
  const ledger = path.join(dir, 'contract-ledger.jsonl');
  writeFileSync(ledger, [entry('share-mine'), entry('share-theirs')].join('\n'));
  expect(await cleanupOnly(url)).toBe(1);
  expect(seen.map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual([
    'GET /api/v1/shares/share-mine',
    'DELETE /api/v1/shares/share-mine',
    'GET /api/v1/shares/share-theirs',
    'GET /api/v1/shares/share-mine',
    'DELETE /api/v1/shares/share-mine',
    'GET /api/v1/shares/share-theirs',
  ]);
});
