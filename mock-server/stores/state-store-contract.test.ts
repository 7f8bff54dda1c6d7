/**
 * One suite of the StateStore port's behaviour (domain/state.ts), run against every engine: what
 * the domain may count on whichever engine keeps its state. PostgreSQL runs on a throwaway server
 * started once for this file (never skipped: without PostgreSQL installed it fails, naming the
 * package). The concurrency proofs across connection pools are in postgres/concurrency.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../domain/api-keys.js';
import type { ImageRecord } from '../domain/images/image-record.js';
import type { ModelRecord } from '../domain/models/model-record.js';
import type { Organization } from '../domain/organization-record.js';
import type { PredictionRecord, SegmentationRow } from '../domain/predictions/prediction-record.js';
import type { ShareRecord } from '../domain/shares/share-record.js';
import type { StateStore } from '../domain/state.js';
import { startTestPostgres, type TestPostgres } from '../../test-support/test-postgres.js';
import { openPostgresStateStore } from './postgres/index.js';
import { openDatabase } from './sqlite/database/open-database.js';
import { readSnapshotRows, replaceState } from '../domain/snapshots/snapshot-rows.js';
import { SqliteStateStore } from './sqlite/sqlite-state-store.js';

interface Engine {
  name: string;
  /**
   * Whether counters, faults and the journal take part in transactions: in PostgreSQL they are
   * tables like the others; SQLite's engine keeps them in its process's memory, outside them.
   */
  controlTablesInTransactions: boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** A store on a new, empty database. */
  open(options?: { journalEntriesPerOrganization?: number }): Promise<StateStore>;
}

let postgres: TestPostgres | undefined;
const postgresEngine: Engine = {
  name: 'PostgreSQL',
  controlTablesInTransactions: true,
  async start() {
    postgres = await startTestPostgres();
  },
  stop: async () => postgres?.stop(),
  async open(options = {}) {
    return openPostgresStateStore({ url: await postgres!.newDatabase(), poolSize: 4, ...options });
  },
};

const sqliteEngine: Engine = {
  name: 'SQLite',
  controlTablesInTransactions: false,
  start: async () => {},
  stop: async () => {},
  async open(options = {}) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'state-contract-'));
    const store = new SqliteStateStore(openDatabase(dir), options);
    const close = store.close.bind(store);
    return Object.assign(store, {
      async close() {
        await close();
        rmSync(dir, { recursive: true, force: true });
      },
    });
  },
};

const ENGINES: Engine[] = [sqliteEngine, postgresEngine];

// Text a client may send in a JSON string that a database's text type cannot hold as such.
const byKey = <T, K extends keyof T>(rows: T[], key: K): T[] =>
  rows.sort((a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0));

const AWKWARD = 'a\u0000b\ud800c\udfff "quoted" \\ é 🦠';
const ORG_ID = 'org-1';
const OTHER_ORG_ID = 'org-2';

const organization = (id = ORG_ID, name = 'Lab'): Organization => ({
  id,
  name,
  plan: { name: 'pro', storageCapImages: 5, monthlyAnalysisCap: 10 },
  apiKeys: [{ id: `key_${id}`, prefix: 'sk_test_abcd', hash: hashApiKey(`sk_test_${id}`) }],
});

const image = (id: string, overrides: Partial<ImageRecord> = {}): ImageRecord => ({
  id,
  organizationId: ORG_ID,
  name: 'cells.tif',
  imageType: 'TIFF',
  size: 5_000_000_000,
  shape: [512, 512],
  uploadStatus: 'ready',
  uploadError: null,
  createdAt: '2026-11-25T12:00:00.000Z',
  processedAt: '2026-11-25T12:00:01.000Z',
  metadata: { stain: AWKWARD, nested: { n: 1.5, list: [true, null] } },
  folderId: AWKWARD,
  storageKey: `images/${id}.tif`,
  multipartUploadId: null,
  conversionAttempts: 1,
  derived: {
    previewPath: `derived/${id}/preview.png`,
    thumbnailPath: `derived/${id}/thumb.png`,
    width: 512,
    height: 512,
  },
  ...overrides,
});

const prediction = (id: string, overrides: Partial<PredictionRecord> = {}): PredictionRecord => ({
  id,
  organizationId: ORG_ID,
  imageId: 'img-1',
  modelId: 'model-1',
  status: 'SUBMITTED',
  createdAt: '2026-11-25T12:00:00.000Z',
  startedAt: null,
  finishedAt: null,
  segmentationId: null,
  cellCount: null,
  error: null,
  runAttempts: 0,
  ...overrides,
});

const segmentation = (id: string, overrides: Partial<SegmentationRow> = {}): SegmentationRow => ({
  id,
  organizationId: ORG_ID,
  predictionId: 'pred-1',
  imageId: 'img-1',
  imageName: AWKWARD,
  modelId: 'model-1',
  modelName: 'Nuclei',
  source: 'mock-threshold/1.0.0',
  cellCount: 3,
  roiIds: ['r1', 'r2', 'r3'],
  hasPreview: true,
  createdAt: '2026-11-25T12:00:02.000Z',
  ...overrides,
});

const share = (id: string, overrides: Partial<ShareRecord> = {}): ShareRecord => ({
  id,
  organizationId: ORG_ID,
  segmentationId: 'seg-1',
  token: `token-${id}`,
  viewCount: 0,
  lastViewedAt: null,
  createdAt: '2026-11-25T12:00:03.000Z',
  revokedAt: null,
  ...overrides,
});

const model = (id: string, name: string, overrides: Partial<ModelRecord> = {}): ModelRecord => ({
  id,
  name,
  version: '1.0.0',
  description: AWKWARD,
  scope: 'base',
  engine: { kind: 'remote', url: 'http://127.0.0.1:1/', timeoutMs: 1000, params: { t: AWKWARD } },
  ...overrides,
});

describe.each(ENGINES)('the state store on $name', (engine) => {
  let state: StateStore;
  beforeAll(async () => {
    await engine.start();
    state = await engine.open();
  });
  afterAll(async () => {
    await state?.close();
    await engine.stop();
  });
  beforeEach(async () => {
    await state.clear();
    await state.organizations.insert(organization());
    await state.organizations.insert(organization(OTHER_ORG_ID, 'Other'));
  });

  describe('organizations', () => {
    it('reads back what was inserted, a name of any JSON string exactly, in insertion order', async () => {
      await state.organizations.insert(organization('org-3', AWKWARD));
      expect(await state.organizations.get('org-3')).toEqual(organization('org-3', AWKWARD));
      expect((await state.organizations.all()).map((o) => o.id)).toEqual([ORG_ID, OTHER_ORG_ID, 'org-3']);
      expect(await state.organizations.get('nobody')).toBeUndefined();
    });

    it('changes the plan, adds and removes keys, and finds an organization by its key', async () => {
      await state.organizations.setPlan(ORG_ID, {
        name: 'max',
        storageCapImages: 50,
        monthlyAnalysisCap: 500,
      });
      const key = { id: 'key_2', prefix: 'sk_test_2', hash: 'cd'.repeat(32) };
      await state.organizations.addKey(ORG_ID, key);
      const org = await state.organizations.get(ORG_ID);
      expect(org?.plan).toEqual({ name: 'max', storageCapImages: 50, monthlyAnalysisCap: 500 });
      expect(org?.apiKeys.map((k) => k.id)).toEqual([`key_${ORG_ID}`, 'key_2']);
      expect(await state.organizations.keyTaken(key.hash)).toBe(true);
      expect(await state.organizations.removeKey(ORG_ID, 'key_2')).toBe(true);
      expect(await state.organizations.removeKey(ORG_ID, 'key_2')).toBe(false);
      expect(await state.organizations.keyTaken(key.hash)).toBe(false);
    });

    it('finds the organization of a presented key by its hash, and none for an unknown key', async () => {
      await state.organizations.addKey(OTHER_ORG_ID, {
        id: 'key_x',
        prefix: 'sk_test_x',
        hash: hashApiKey('sk_test_x'),
      });
      expect((await state.organizationForKey('sk_test_x'))?.id).toBe(OTHER_ORG_ID);
      expect(await state.organizationForKey('sk_test_unknown')).toBeUndefined();
    });

    it('lock() holds nothing up inside a single transaction and answers for an unknown organization', async () => {
      await state.transaction(async () => {
        await state.organizations.lock(ORG_ID);
        await state.organizations.lock(ORG_ID);
        await state.organizations.lock('nobody');
      });
    });
  });

  it('counts analyses per organization and month', async () => {
    expect(await state.usage.analyses(ORG_ID, '2026-11')).toBe(0);
    await state.usage.setAnalyses(ORG_ID, '2026-11', 3);
    await state.usage.setAnalyses(ORG_ID, '2026-11', 4);
    await state.usage.setAnalyses(ORG_ID, '2026-12', 1);
    await state.usage.setAnalyses(OTHER_ORG_ID, '2026-11', 9);
    expect(await state.usage.analyses(ORG_ID, '2026-11')).toBe(4);
    await state.usage.clear(ORG_ID);
    expect(await state.usage.analyses(ORG_ID, '2026-11')).toBe(0);
    expect(await state.usage.analyses(ORG_ID, '2026-12')).toBe(0);
    expect(await state.usage.analyses(OTHER_ORG_ID, '2026-11')).toBe(9);
  });

  it('lists base models first, then the organization’s own, each by name in code-point order', async () => {
    await state.models.add(model('m-b', 'beta'));
    await state.models.add(model('m-a', 'Zeta'));
    await state.models.add(model('m-c', 'alpha', { scope: 'custom', organizationId: ORG_ID }));
    await state.models.add(model('m-d', 'Alpha', { scope: 'custom', organizationId: OTHER_ORG_ID }));
    expect(await state.models.get('m-c')).toEqual(
      model('m-c', 'alpha', { scope: 'custom', organizationId: ORG_ID }),
    );
    expect(await state.models.get('m-a')).toEqual(model('m-a', 'Zeta'));
    const org = (await state.organizations.get(ORG_ID))!;
    expect((await state.models.listFor(org)).map((m) => m.name)).toEqual(['Zeta', 'beta', 'alpha']);
  });

  it('keeps images: upsert, counts, lookups by status, keys and open uploads, delete', async () => {
    await state.images.put(image('img-1'));
    await state.images.put(
      image('img-2', { uploadStatus: 'uploading', multipartUploadId: 'up-2', derived: null, shape: null }),
    );
    await state.images.put(image('img-3', { organizationId: OTHER_ORG_ID }));
    expect(await state.images.get('img-1')).toEqual(image('img-1'));
    await state.images.put(image('img-2', { uploadStatus: 'processing', name: 'renamed' }));
    expect((await state.images.get('img-2'))?.name).toBe('renamed');
    expect(await state.images.countOf(ORG_ID)).toBe(2);
    expect((await state.images.idsOf(ORG_ID)).sort()).toEqual(['img-1', 'img-2']);
    expect((await state.images.withStatus('processing')).map((i) => i.id)).toEqual(['img-2']);
    expect(await state.images.storageKeys()).toEqual(
      new Set(['images/img-1.tif', 'images/img-2.tif', 'images/img-3.tif']),
    );
    expect(await state.images.multipartUploadIds()).toEqual(new Set());
    // pages by id, each after the last of the one before, every status
    expect((await state.images.pageAfter(null, 2)).map((i) => i.id)).toEqual(['img-1', 'img-2']);
    expect((await state.images.pageAfter('img-2', 2)).map((i) => i.id)).toEqual(['img-3']);
    expect(await state.images.pageAfter('img-3', 2)).toEqual([]);
    await state.images.put(image('img-2', { multipartUploadId: 'up-2' }));
    expect(await state.images.multipartUploadIds()).toEqual(new Set(['up-2']));
    await state.images.delete('img-1');
    expect(await state.images.get('img-1')).toBeUndefined();
    expect(await state.images.countOf(ORG_ID)).toBe(1);
  });

  it('keeps predictions: upsert, the one in flight per image and model, by status, by image and organization', async () => {
    await state.predictions.put(prediction('p-1'));
    await state.predictions.put(
      prediction('p-2', { status: 'COMPLETED', imageId: 'img-2', segmentationId: 's', cellCount: 4 }),
    );
    await state.predictions.put(
      prediction('p-3', { organizationId: OTHER_ORG_ID, status: 'FAILED', error: 'no' }),
    );
    expect(await state.predictions.get('p-2')).toEqual(
      prediction('p-2', { status: 'COMPLETED', imageId: 'img-2', segmentationId: 's', cellCount: 4 }),
    );
    expect((await state.predictions.inFlightFor(ORG_ID, 'img-1', 'model-1'))?.id).toBe('p-1');
    expect(await state.predictions.inFlightFor(OTHER_ORG_ID, 'img-1', 'model-1')).toBeUndefined();
    expect(await state.predictions.inFlightFor(ORG_ID, 'img-1', 'model-2')).toBeUndefined();
    await state.predictions.put(prediction('p-1', { status: 'STARTED', startedAt: 'then', runAttempts: 1 }));
    expect((await state.predictions.inFlightFor(ORG_ID, 'img-1', 'model-1'))?.runAttempts).toBe(1);
    expect((await state.predictions.withStatus('STARTED', 'FAILED')).map((p) => p.id).sort()).toEqual([
      'p-1',
      'p-3',
    ]);
    expect(await state.predictions.idsOfImage('img-1')).toEqual(expect.arrayContaining(['p-1', 'p-3']));
    expect((await state.predictions.idsOf(ORG_ID)).sort()).toEqual(['p-1', 'p-2']);
    await state.predictions.delete('p-1');
    expect(await state.predictions.get('p-1')).toBeUndefined();
  });

  it('keeps segmentations and shares, the live share of a segmentation, by token', async () => {
    await state.segmentations.put(segmentation('seg-1'));
    await state.segmentations.put(segmentation('seg-2', { imageId: 'img-2', hasPreview: false }));
    expect(await state.segmentations.get('seg-1')).toEqual(segmentation('seg-1'));
    expect((await state.segmentations.get('seg-2'))?.hasPreview).toBe(false);
    expect(await state.segmentations.idsOfImage('img-1')).toEqual(['seg-1']);
    expect((await state.segmentations.idsOf(ORG_ID)).sort()).toEqual(['seg-1', 'seg-2']);
    expect(await state.segmentations.idsAfter(null, 10)).toEqual(['seg-1', 'seg-2']);
    expect(await state.segmentations.idsAfter(null, 1)).toEqual(['seg-1']);
    expect(await state.segmentations.idsAfter('seg-1', 10)).toEqual(['seg-2']);

    await state.shares.put(share('sh-1', { revokedAt: '2026-11-25T12:01:00.000Z' }));
    await state.shares.put(share('sh-2'));
    expect((await state.shares.liveFor('seg-1'))?.id).toBe('sh-2');
    expect(await state.shares.byToken('token-sh-1')).toEqual(
      share('sh-1', { revokedAt: '2026-11-25T12:01:00.000Z' }),
    );
    await state.shares.put(share('sh-2', { viewCount: 2, lastViewedAt: 'now', revokedAt: 'later' }));
    expect(await state.shares.liveFor('seg-1')).toBeUndefined();
    expect((await state.shares.get('sh-2'))?.viewCount).toBe(2);
    expect((await state.shares.idsOfSegmentation('seg-1')).sort()).toEqual(['sh-1', 'sh-2']);
    expect((await state.shares.idsOf(ORG_ID)).sort()).toEqual(['sh-1', 'sh-2']);
    await state.shares.delete('sh-1');
    await state.segmentations.delete('seg-1');
    expect(await state.shares.get('sh-1')).toBeUndefined();
    expect(await state.segmentations.get('seg-1')).toBeUndefined();
  });

  it('keeps the clock offsets, the mock’s own under the empty id', async () => {
    expect(await state.clockOffsets.get('')).toBeUndefined();
    await state.clockOffsets.set('', 86_400_000);
    await state.clockOffsets.set(ORG_ID, -1.5);
    await state.clockOffsets.set(ORG_ID, 3_600_000);
    expect(await state.clockOffsets.get('')).toBe(86_400_000);
    expect(await state.clockOffsets.get(ORG_ID)).toBe(3_600_000);
    expect(await state.clockOffsets.get(OTHER_ORG_ID)).toBeUndefined();
    expect(byKey(await state.clockOffsets.all(), 'organizationId')).toEqual([
      { organizationId: '', offsetMs: 86_400_000 },
      { organizationId: ORG_ID, offsetMs: 3_600_000 },
    ]);
  });

  it('keeps one seed time, the last one marked', async () => {
    expect(await state.seed.seededAt()).toBeUndefined();
    await state.seed.markSeeded('2026-11-25T12:00:00.000Z');
    await state.seed.markSeeded('2026-11-26T12:00:00.000Z');
    expect(await state.seed.seededAt()).toBe('2026-11-26T12:00:00.000Z');
  });

  it('keeps plan bounds per organization until they are withdrawn', async () => {
    await state.planBounds.set(ORG_ID, { storageCapImages: 5, monthlyAnalysisCap: 10 });
    await state.planBounds.set(ORG_ID, { storageCapImages: 7, monthlyAnalysisCap: 9 });
    await state.planBounds.set(OTHER_ORG_ID, { storageCapImages: 1, monthlyAnalysisCap: 1 });
    expect(await state.planBounds.get(ORG_ID)).toEqual({ storageCapImages: 7, monthlyAnalysisCap: 9 });
    await state.planBounds.delete(OTHER_ORG_ID);
    expect(await state.planBounds.get(OTHER_ORG_ID)).toBeUndefined();
    expect(await state.planBounds.all()).toEqual([
      { organizationId: ORG_ID, bounds: { storageCapImages: 7, monthlyAnalysisCap: 9 } },
    ]);
  });

  it('counts held marks per kind and group that are held now, on the engine clock, and drops a kind at once', async () => {
    await state.heldMarks.hold('slot', ORG_ID, 'a', 60_000);
    await state.heldMarks.hold('slot', ORG_ID, 'b', -1_000);
    await state.heldMarks.hold('slot', ORG_ID, 'b', 60_000); // renewed after it lapsed
    await state.heldMarks.hold('slot', ORG_ID, 'old', -1_000); // lapsed, never renewed
    await state.heldMarks.hold('slot', OTHER_ORG_ID, 'c', 60_000);
    await state.heldMarks.hold('completing', ORG_ID, 'a', 60_000);
    expect(await state.heldMarks.countHeld('slot', ORG_ID)).toBe(2);
    expect(await state.heldMarks.isHeld('slot', ORG_ID, 'b')).toBe(true);
    expect(await state.heldMarks.isHeld('slot', ORG_ID, 'old')).toBe(false);
    await state.heldMarks.release('slot', ORG_ID, 'a');
    expect(await state.heldMarks.isHeld('slot', ORG_ID, 'a')).toBe(false);
    expect(await state.heldMarks.countHeld('slot', ORG_ID)).toBe(1);
    await state.heldMarks.clear('slot');
    expect(await state.heldMarks.countHeld('slot', OTHER_ORG_ID)).toBe(0);
    expect(await state.heldMarks.isHeld('completing', ORG_ID, 'a')).toBe(true);
  });

  it('keeps a held outcome, a client’s text in it as it was sent', async () => {
    const hold = { needed: 3, outcome: { status: 'FAILED' as const, error: AWKWARD } };
    await state.pollHolds.put('pred-1', hold);
    expect(await state.pollHolds.get('pred-1')).toEqual(hold);
    expect(await state.pollHolds.all()).toEqual([{ predictionId: 'pred-1', ...hold }]);
    await state.pollHolds.delete('pred-1');
    expect(await state.pollHolds.get('pred-1')).toBeUndefined();
  });

  it('keeps delays per scope and subject, and forced outcomes as lists an empty one removes', async () => {
    const delays = { startDelayMs: 5, runDelayMs: 6, completeAfterPolls: 2 };
    await state.progressDelays.set('defaults', '', delays);
    await state.progressDelays.set('organization', ORG_ID, { startDelayMs: 1, runDelayMs: 2 });
    await state.progressDelays.set('prediction', ORG_ID, { startDelayMs: 3, runDelayMs: 4 });
    expect(await state.progressDelays.get('defaults', '')).toEqual(delays);
    expect(await state.progressDelays.get('prediction', ORG_ID)).toEqual({ startDelayMs: 3, runDelayMs: 4 });
    await state.progressDelays.delete('prediction', ORG_ID);
    expect(await state.progressDelays.get('prediction', ORG_ID)).toBeUndefined();
    expect((await state.progressDelays.all()).map((d) => d.scope).sort()).toEqual([
      'defaults',
      'organization',
    ]);
    const outcomes = [{ status: 'FAILED' as const, error: AWKWARD }, { status: 'COMPLETED' as const }];
    await state.forcedOutcomes.set('organization', ORG_ID, outcomes);
    await state.forcedOutcomes.set('prediction', 'pred-1', [{ status: 'COMPLETED' }]);
    expect(await state.forcedOutcomes.get('organization', ORG_ID)).toEqual(outcomes);
    await state.forcedOutcomes.set('prediction', 'pred-1', []);
    expect(await state.forcedOutcomes.get('prediction', 'pred-1')).toBeUndefined();
    expect(await state.forcedOutcomes.all()).toEqual([
      { scope: 'organization', subjectId: ORG_ID, outcomes },
    ]);
    await state.progressDelays.clear();
    await state.forcedOutcomes.clear();
    expect(await state.progressDelays.all()).toEqual([]);
    expect(await state.forcedOutcomes.all()).toEqual([]);
  });

  it('counts: increment answers the new count, none lost when many run at once', async () => {
    expect(await state.counters.get('polls:p')).toBe(0);
    expect(await state.counters.increment('polls:p')).toBe(1);
    const counts = await Promise.all(Array.from({ length: 20 }, () => state.counters.increment('polls:p')));
    expect(counts.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    expect(await state.counters.get('polls:p')).toBe(21);
    await state.counters.increment('polls:q');
    await state.counters.delete('polls:p');
    expect(await state.counters.get('polls:p')).toBe(0);
    await state.counters.clear();
    expect(await state.counters.get('polls:q')).toBe(0);
  });

  it("sums an organization's image bytes and counts its open resumable uploads (the abuse limits' footprint)", async () => {
    expect(await state.images.footprintOf(ORG_ID)).toEqual({ bytes: 0, openUploads: 0 });
    await state.images.put(image('img-1', { size: 5_000_000_000 }));
    await state.images.put(
      image('img-2', { size: 30, uploadStatus: 'uploading', multipartUploadId: 'up-2' }),
    );
    await state.images.put(image('img-3', { size: 7, uploadStatus: 'uploading', multipartUploadId: null }));
    await state.images.put(
      image('img-4', {
        size: 9,
        organizationId: OTHER_ORG_ID,
        multipartUploadId: 'up-4',
        uploadStatus: 'uploading',
      }),
    );
    expect(await state.images.footprintOf(ORG_ID)).toEqual({ bytes: 5_000_000_037, openUploads: 1 });
    expect(await state.images.footprintOf(OTHER_ORG_ID)).toEqual({ bytes: 9, openUploads: 1 });
  });

  it("counts an organization's predictions in flight (SUBMITTED or STARTED)", async () => {
    expect(await state.predictions.inFlightCountOf(ORG_ID)).toBe(0);
    await state.predictions.put(prediction('p-1'));
    await state.predictions.put(prediction('p-2', { status: 'STARTED', imageId: 'img-2' }));
    await state.predictions.put(
      prediction('p-3', { status: 'COMPLETED', imageId: 'img-3', segmentationId: 's', cellCount: 1 }),
    );
    await state.predictions.put(prediction('p-4', { organizationId: OTHER_ORG_ID }));
    expect(await state.predictions.inFlightCountOf(ORG_ID)).toBe(2);
    expect(await state.predictions.inFlightCountOf(OTHER_ORG_ID)).toBe(1);
  });

  describe('rate windows', () => {
    // A window a year long: no test run crosses its end between two hits.
    const YEAR_MS = 365 * 86_400_000;

    it('count the hits of a key in its window, none lost when many run at once, each key apart', async () => {
      expect(await state.rates.hit('key_a', YEAR_MS)).toBe(1);
      const counts = await Promise.all(Array.from({ length: 20 }, () => state.rates.hit('key_a', YEAR_MS)));
      expect(counts.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
      expect(await state.rates.hit('key_b', YEAR_MS)).toBe(1);
    });

    it("start a key's next window from 1", async () => {
      await state.rates.hit('key_c', 50);
      await state.rates.hit('key_c', 50);
      // Not a timed assertion: once a whole window has passed, the count is a new window's.
      await new Promise((resolve) => setTimeout(resolve, 120));
      expect(await state.rates.hit('key_c', 50)).toBe(1);
    });
  });

  describe("a request's reads", () => {
    it('answer what was written before the request began, each write as soon as it returned', async () => {
      const always = () => 0;
      const before = state.requestReads();
      expect(await before.clockOffsets.get(ORG_ID)).toBeUndefined();
      expect(await before.faults.take('getImage', ORG_ID, always)).toBeUndefined();
      await state.clockOffsets.set(ORG_ID, 3_600_000);
      const fault = await state.faults.add({
        operationId: 'getImage',
        status: 503,
        times: 1,
        detail: AWKWARD,
      });
      const reads = state.requestReads();
      expect(await reads.clockOffsets.get(ORG_ID)).toBe(3_600_000);
      expect(await reads.clockOffsets.get(OTHER_ORG_ID)).toBeUndefined();
      expect(await reads.faults.take('getImage', OTHER_ORG_ID, always)).toEqual({ ...fault, hits: 1 });
      expect(await state.requestReads().faults.take('getImage', ORG_ID, always)).toBeUndefined();
      expect(await state.faults.list()).toEqual([]);
      expect((await state.requestReads().organizationForKey(`sk_test_${ORG_ID}`))?.id).toBe(ORG_ID);
    });
  });

  describe('faults', () => {
    it('are listed oldest first and cleared, answering how many there were', async () => {
      const first = await state.faults.add({ operationId: 'uploadImage', status: 503, detail: AWKWARD });
      const second = await state.faults.add({
        operationId: 'getImage',
        latencyMs: 10,
        organizationId: ORG_ID,
      });
      expect(first).toMatchObject({ operationId: 'uploadImage', detail: AWKWARD, hits: 0 });
      expect(await state.faults.list()).toEqual([first, second]);
      expect(await state.faults.clear()).toBe(2);
      expect(await state.faults.list()).toEqual([]);
    });

    it('take the oldest matching fault for the operation and organization, count hits, retire after `times`', async () => {
      await state.faults.add({ operationId: 'getImage', status: 500, organizationId: OTHER_ORG_ID });
      const mine = await state.faults.add({ operationId: 'getImage', status: 503, times: 2 });
      const never = () => 0;
      expect(await state.faults.take('uploadImage', ORG_ID, never)).toBeUndefined();
      expect(await state.faults.take('getImage', ORG_ID, never)).toMatchObject({ id: mine.id, hits: 1 });
      expect(await state.faults.take('getImage', ORG_ID, never)).toMatchObject({ id: mine.id, hits: 2 });
      expect(await state.faults.take('getImage', ORG_ID, never)).toBeUndefined();
      expect((await state.faults.list()).map((f) => f.organizationId)).toEqual([OTHER_ORG_ID]);
      expect(await state.faults.take('getImage', OTHER_ORG_ID, never)).toMatchObject({
        status: 500,
        hits: 1,
      });
    });

    it('fire on a probability draw below their probability, and pass on to the next otherwise', async () => {
      const rare = await state.faults.add({ operationId: 'getImage', status: 500, probability: 0.1 });
      const always = await state.faults.add({ operationId: 'getImage', status: 503 });
      expect((await state.faults.take('getImage', ORG_ID, () => 0.5))?.id).toBe(always.id);
      expect((await state.faults.take('getImage', ORG_ID, () => 0.05))?.id).toBe(rare.id);
    });

    it('give the last hit of a `times: 1` fault to exactly one of many takers at once', async () => {
      await state.faults.add({ operationId: 'getImage', status: 503, times: 1 });
      const taken = await Promise.all(
        Array.from({ length: 12 }, () => state.faults.take('getImage', ORG_ID, () => 0)),
      );
      expect(taken.filter(Boolean)).toHaveLength(1);
      expect(await state.faults.list()).toEqual([]);
    });
  });

  const journalEntry = (i: number, organizationId: string | null) => ({
    at: `2026-11-25T12:00:0${i % 10}.000Z`,
    requestId: `r${i}`,
    method: 'GET',
    path: `/api/v1/images/${i}`,
    operationId: i % 2 ? 'getImage' : 'listImages',
    organizationId,
    status: i === 7 ? 404 : 200,
    durationMs: i,
    ...(i === 8 ? { requestBody: { name: AWKWARD }, responseBody: [1, { a: null }] } : {}),
    fault: null,
  });

  it('journal: newest first, filtered, limited, keeping the newest entries of each organization', async () => {
    const small = await engine.open({ journalEntriesPerOrganization: 5 });
    try {
      const entry = (i: number) => journalEntry(i, i < 8 ? ORG_ID : null);
      for (let i = 1; i <= 8; i++) await small.journal.record(entry(i));
      // The organization's newest 5 (r3 to r7) and the one entry without an organization, merged.
      expect((await small.journal.query({})).map((e) => e.requestId)).toEqual([
        'r8',
        'r7',
        'r6',
        'r5',
        'r4',
        'r3',
      ]);
      expect((await small.journal.query({})).at(0)).toEqual(entry(8));
      expect((await small.journal.query({ operationId: 'getImage' })).map((e) => e.requestId)).toEqual([
        'r7',
        'r5',
        'r3',
      ]);
      expect((await small.journal.query({ status: 404 })).map((e) => e.requestId)).toEqual(['r7']);
      expect((await small.journal.query({ limit: 2 })).map((e) => e.requestId)).toEqual(['r8', 'r7']);
      expect(
        (await small.journal.query({ organizationId: ORG_ID, limit: 1 })).map((e) => e.requestId),
      ).toEqual(['r7']);
      await small.journal.clear();
      expect(await small.journal.query({})).toEqual([]);
    } finally {
      await small.close();
    }
  });

  it('journal: entries recorded together keep their order across organizations, and each organization its newest', async () => {
    const small = await engine.open({ journalEntriesPerOrganization: 5 });
    try {
      // One batch on PostgreSQL: the organization's entries on both sides of the other's.
      const entry = (i: number) => journalEntry(i, i === 3 ? OTHER_ORG_ID : ORG_ID);
      await Promise.all(Array.from({ length: 9 }, (_, i) => small.journal.record(entry(i + 1))));
      expect((await small.journal.query({})).map((e) => e.requestId)).toEqual([
        'r9',
        'r8',
        'r7',
        'r6',
        'r5',
        'r3',
      ]);
      expect(
        (await small.journal.query({ organizationId: ORG_ID, limit: 10 })).map((e) => e.requestId),
      ).toEqual(['r9', 'r8', 'r7', 'r6', 'r5']);
      expect(
        (await small.journal.query({ operationId: 'listImages', limit: 2 })).map((e) => e.requestId),
      ).toEqual(['r8', 'r6']);
      expect((await small.journal.query({ status: 404 })).map((e) => e.requestId)).toEqual(['r7']);
      expect((await small.journal.query({})).at(1)).toEqual(entry(8));
    } finally {
      await small.close();
    }
  });

  it('journal: an entry is read back by the same store at once, before its batch is due', async () => {
    const recorded = state.journal.record(journalEntry(1, ORG_ID));
    expect((await state.journal.query({ organizationId: ORG_ID })).map((e) => e.requestId)).toEqual(['r1']);
    await recorded;
  });

  it(
    "journal: one organization's 20,000 requests leave another's last 100 intact",
    { timeout: 120_000 },
    async () => {
      for (let i = 0; i < 100; i++) await state.journal.record(journalEntry(i, OTHER_ORG_ID));
      for (let i = 0; i < 20; i++) await state.journal.record(journalEntry(100 + i, null));
      const busy = Array.from({ length: 20_000 }, (_, i) => journalEntry(1000 + i, ORG_ID));
      for (let i = 0; i < busy.length; i += 500)
        await Promise.all(busy.slice(i, i + 500).map((e) => state.journal.record(e)));

      const other = await state.journal.query({ organizationId: OTHER_ORG_ID, limit: 1000 });
      expect(other.map((e) => e.requestId)).toEqual(Array.from({ length: 100 }, (_, i) => `r${99 - i}`));
      const kept = await state.journal.query({ organizationId: ORG_ID, limit: 5000 });
      // The busy one keeps its own newest 1,000 (the default), no more.
      expect(kept).toHaveLength(1000);
      expect(new Set(kept.map((e) => e.requestId))).toEqual(
        new Set(busy.slice(-1000).map((e) => e.requestId)),
      );
      const withoutOrganization = (await state.journal.query({ limit: 30_000 })).filter(
        (e) => e.organizationId === null,
      );
      expect(withoutOrganization).toHaveLength(20);
    },
  );

  describe('jobs', () => {
    const HELD = 60_000;
    // A lease of 0 ms has run out as soon as it is given: the lease's expiry, with no waiting.
    const LAPSED = 0;

    it('are queued once per subject and claimed oldest first, by one worker at a time', async () => {
      await state.jobs.enqueue('prediction', 'p-1');
      await state.jobs.enqueue('conversion', 'img-1');
      await state.jobs.enqueue('prediction', 'p-1');
      await state.jobs.enqueue('prediction', 'p-2');
      expect(await state.jobs.count()).toBe(3);
      expect(await state.jobs.claim('w1', ['prediction'], HELD)).toEqual({
        kind: 'prediction',
        subjectId: 'p-1',
        attempts: 1,
      });
      expect(await state.jobs.claim('w2', ['prediction', 'conversion'], HELD)).toEqual({
        kind: 'conversion',
        subjectId: 'img-1',
        attempts: 1,
      });
      expect(await state.jobs.claim('w3', ['prediction'], HELD)).toMatchObject({ subjectId: 'p-2' });
      expect(await state.jobs.claim('w4', ['prediction', 'conversion'], HELD)).toBeUndefined();
    });

    it('go back to the queue when the lease runs out; once claimed again the old holder can neither renew nor finish', async () => {
      await state.jobs.enqueue('prediction', 'p-1');
      const killed = (await state.jobs.claim('killed', ['prediction'], LAPSED))!;
      expect(killed).toMatchObject({ attempts: 1 });
      const other = (await state.jobs.claim('other', ['prediction'], HELD))!;
      expect(other).toEqual({ kind: 'prediction', subjectId: 'p-1', attempts: 2 });
      expect(await state.jobs.renew(killed, 'killed', HELD)).toBe(false);
      expect(await state.jobs.finish('prediction', 'p-1', 'killed')).toBe(false);
      expect(await state.jobs.renew(other, 'other', HELD)).toBe(true);
      expect(await state.jobs.finish('prediction', 'p-1', 'other')).toBe(true);
      expect(await state.jobs.count()).toBe(0);
    });

    it('stay with their holder while it renews the lease in time, and go back to the queue once it lapsed', async () => {
      await state.jobs.enqueue('conversion', 'img-1');
      const lease = (await state.jobs.claim('w1', ['conversion'], HELD))!;
      expect(await state.jobs.renew(lease, 'w1', HELD)).toBe(true);
      expect(await state.jobs.claim('w2', ['conversion'], HELD)).toBeUndefined();
      expect(await state.jobs.renew(lease, 'w1', LAPSED)).toBe(true);
      expect(await state.jobs.claim('w2', ['conversion'], HELD)).toMatchObject({
        subjectId: 'img-1',
        attempts: 2,
      });
    });

    it('renewed by their holder after its lease lapsed while no claim took them since, and refused once one did', async () => {
      await state.jobs.enqueue('conversion', 'img-1');
      // Its renewals failed while the database did not answer: the lease ran out, nobody claimed it.
      const lapsed = (await state.jobs.claim('w1', ['conversion'], LAPSED))!;
      expect(await state.jobs.renew(lapsed, 'w1', HELD)).toBe(true);
      expect(await state.jobs.claim('w2', ['conversion'], HELD)).toBeUndefined();
      expect(await state.jobs.renew(lapsed, 'w2', HELD)).toBe(false);
      // Lapsed again, and claimed by another worker before its holder renews: the job is that claim's.
      expect(await state.jobs.renew(lapsed, 'w1', LAPSED)).toBe(true);
      expect(await state.jobs.claim('w2', ['conversion'], HELD)).toMatchObject({ attempts: 2 });
      expect(await state.jobs.renew(lapsed, 'w1', HELD)).toBe(false);
      expect(await state.jobs.finish('conversion', 'img-1', 'w1')).toBe(false);
      // Claimed again by the same worker: the earlier claim's renewal is refused too.
      await state.jobs.enqueue('conversion', 'img-2');
      const first = (await state.jobs.claim('w1', ['conversion'], LAPSED))!;
      const second = (await state.jobs.claim('w1', ['conversion'], HELD))!;
      expect(second).toMatchObject({ subjectId: 'img-2', attempts: 2 });
      expect(await state.jobs.renew(first, 'w1', HELD)).toBe(false);
      expect(await state.jobs.renew(second, 'w1', HELD)).toBe(true);
    });

    it('are queued already held when asked, not claimable by another, and all put back by releaseAll', async () => {
      await state.jobs.enqueue('prediction', 'p-1');
      await state.jobs.enqueue('prediction', 'p-2', { worker: 'w1', leaseMs: HELD });
      const p2 = { kind: 'prediction', subjectId: 'p-2', attempts: 1 } as const;
      expect(await state.jobs.renew(p2, 'w1', HELD)).toBe(true);
      const p1 = (await state.jobs.claim('w2', ['prediction'], HELD))!;
      expect(p1).toMatchObject({ subjectId: 'p-1' });
      expect(await state.jobs.claim('w2', ['prediction'], HELD)).toBeUndefined();
      await state.jobs.releaseAll();
      expect(await state.jobs.renew(p1, 'w2', HELD)).toBe(false);
      expect(await state.jobs.claim('w3', ['prediction'], HELD)).toEqual({
        kind: 'prediction',
        subjectId: 'p-1',
        attempts: 2,
      });
      expect(await state.jobs.claim('w3', ['prediction'], HELD)).toMatchObject({
        subjectId: 'p-2',
        attempts: 2,
      });
    });

    it('put off by their holder: not claimable until the delay ends, then claimed as the same attempt', async () => {
      await state.jobs.enqueue('conversion', 'img-1');
      await state.jobs.enqueue('conversion', 'img-2');
      const img1 = (await state.jobs.claim('w1', ['conversion'], HELD))!;
      const img2 = (await state.jobs.claim('w1', ['conversion'], HELD))!;
      const asked: number[] = [];
      const later = (forMs: number) => (asked.push(forMs), HELD);
      expect(await state.jobs.retryLater(img1, 'w2', 0, later)).toBeUndefined();
      expect(await state.jobs.retryLater(img1, 'w1', 0, later)).toEqual({
        unavailableForMs: 0,
        putOff: true,
      });
      expect(asked).toEqual([0]);
      // A delay that lapses as it is given: claimable at once, as the attempt it was.
      await state.jobs.retryLater(img2, 'w1', 0, () => LAPSED);
      const again = await state.jobs.claim('w2', ['conversion'], HELD);
      expect(again).toEqual({ kind: 'conversion', subjectId: 'img-2', attempts: 1 });
      // Its holder gives up: the job stays held, for its holder to fail and finish.
      const answer = await state.jobs.retryLater(again!, 'w2', 0, () => undefined);
      expect(answer).toMatchObject({ putOff: false });
      expect(answer!.unavailableForMs).toBeGreaterThanOrEqual(0);
      expect(await state.jobs.finish('conversion', 'img-2', 'w2')).toBe(true);
    });

    it('put off by their holder after its lease ran out, as long as no claim took them since its own', async () => {
      await state.jobs.enqueue('conversion', 'img-1');
      // Its renewals failed while the database did not answer: the lease ran out, nobody claimed it.
      const lapsed = (await state.jobs.claim('w1', ['conversion'], LAPSED))!;
      expect(await state.jobs.retryLater(lapsed, 'w1', 0, () => HELD)).toMatchObject({ putOff: true });
      expect(await state.jobs.claim('w2', ['conversion'], HELD)).toBeUndefined();
      // Claimed again since (here by the same worker): the job is that claim's run now.
      await state.jobs.enqueue('conversion', 'img-2');
      const img2 = (await state.jobs.claim('w1', ['conversion'], LAPSED))!;
      expect(await state.jobs.claim('w1', ['conversion'], HELD)).toMatchObject({ attempts: 2 });
      expect(await state.jobs.retryLater(img2, 'w1', 0, () => HELD)).toBeUndefined();
    });

    it('put off again: only the time put off counts as unavailable, not the time its next run worked', async () => {
      await state.jobs.enqueue('conversion', 'img-1');
      const first = (await state.jobs.claim('w1', ['conversion'], HELD))!;
      await state.jobs.retryLater(first, 'w1', 0, () => LAPSED);
      const second = (await state.jobs.claim('w1', ['conversion'], HELD))!;
      await new Promise((resolve) => setTimeout(resolve, 200)); // the run works 200 ms, then meets it again
      const answer = await state.jobs.retryLater(second, 'w1', 200, () => undefined);
      expect(answer!.unavailableForMs).toBeLessThan(100);
    });

    it('cancelled whoever holds them: the holder learns it from renew and finish', async () => {
      await state.jobs.enqueue('prediction', 'p-1');
      const lease = (await state.jobs.claim('w1', ['prediction'], HELD))!;
      await state.jobs.cancel('prediction', 'p-1');
      expect(await state.jobs.renew(lease, 'w1', HELD)).toBe(false);
      expect(await state.jobs.finish('prediction', 'p-1', 'w1')).toBe(false);
      expect(await state.jobs.count()).toBe(0);
    });
  });

  describe('transactions', () => {
    it('commit every write together when the work resolves, and answer its result', async () => {
      const result = await state.transaction(async () => {
        await state.images.put(image('img-1'));
        await state.predictions.put(prediction('p-1'));
        return 'done';
      });
      expect(result).toBe('done');
      expect(await state.images.get('img-1')).toBeDefined();
      expect(await state.predictions.get('p-1')).toBeDefined();
    });

    it('keep none of the writes when the work throws, and throw its error', async () => {
      const failure = new Error('the check failed');
      await expect(
        state.transaction(async () => {
          await state.images.put(image('img-1'));
          await state.counters.increment('n');
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await state.images.get('img-1')).toBeUndefined();
      expect(await state.counters.get('n')).toBe(engine.controlTablesInTransactions ? 0 : 1);
    });

    it('join a nested transaction to the outer one: the outer failure undoes the inner writes', async () => {
      await expect(
        state.transaction(async () => {
          await state.transaction(async () => state.images.put(image('img-1')));
          expect(await state.images.get('img-1')).toBeDefined();
          throw new Error('outer fails');
        }),
      ).rejects.toThrow('outer fails');
      expect(await state.images.get('img-1')).toBeUndefined();
    });

    it('join every call made in the work’s async context, however it was scheduled', async () => {
      await expect(
        state.transaction(async () => {
          await Promise.all([state.images.put(image('img-1')), state.images.put(image('img-2'))]);
          await new Promise<void>((resolve, reject) =>
            setTimeout(() => state.clockOffsets.set('later', 1).then(resolve, reject), 1),
          );
          await Promise.resolve().then(() => state.counters.increment('n'));
          expect(await state.images.countOf(ORG_ID)).toBe(2);
          throw new Error('undo all');
        }),
      ).rejects.toThrow('undo all');
      expect(await state.images.countOf(ORG_ID)).toBe(0);
      expect(await state.clockOffsets.get('later')).toBeUndefined();
      expect(await state.counters.get('n')).toBe(engine.controlTablesInTransactions ? 0 : 1);
    });

    it('outside any transaction, each call is its own and stays done', async () => {
      await state.images.put(image('img-1'));
      await expect(state.transaction(async () => Promise.reject(new Error('unrelated')))).rejects.toThrow();
      expect(await state.images.get('img-1')).toBeDefined();
    });
  });

  it('clear() empties every table', async () => {
    await state.images.put(image('img-1'));
    await state.predictions.put(prediction('p-1'));
    await state.segmentations.put(segmentation('seg-1'));
    await state.shares.put(share('sh-1'));
    await state.models.add(model('m-1', 'm'));
    await state.usage.setAnalyses(ORG_ID, '2026-11', 1);
    await state.clockOffsets.set('', 1);
    await state.seed.markSeeded('2026-11-25T12:00:00.000Z');
    await state.planBounds.set(ORG_ID, { storageCapImages: 1, monthlyAnalysisCap: 1 });
    await state.heldMarks.hold('slot', ORG_ID, 'a', 60_000);
    await state.pollHolds.put('p-1', { needed: 2, outcome: { status: 'FAILED', error: 'x' } });
    await state.progressDelays.set('defaults', '', { startDelayMs: 1, runDelayMs: 1 });
    await state.forcedOutcomes.set('organization', ORG_ID, [{ status: 'COMPLETED' }]);
    await state.counters.increment('c');
    await state.faults.add({ operationId: 'getImage' });
    await state.journal.record({
      at: 'now',
      requestId: 'r',
      method: 'GET',
      path: '/',
      operationId: null,
      organizationId: null,
      status: 200,
      durationMs: 1,
      fault: null,
    });
    await state.jobs.enqueue('prediction', 'p-1');
    await state.clear();
    expect(await state.organizations.all()).toEqual([]);
    expect(await state.images.storageKeys()).toEqual(new Set());
    expect(await state.predictions.withStatus('SUBMITTED')).toEqual([]);
    expect(await state.segmentations.idsAfter(null, 10)).toEqual([]);
    expect(await state.shares.get('sh-1')).toBeUndefined();
    expect(await state.models.get('m-1')).toBeUndefined();
    expect(await state.usage.analyses(ORG_ID, '2026-11')).toBe(0);
    expect(await state.clockOffsets.all()).toEqual([]);
    expect(await state.seed.seededAt()).toBeUndefined();
    expect(await state.planBounds.all()).toEqual([]);
    expect(await state.heldMarks.countHeld('slot', ORG_ID)).toBe(0);
    expect(await state.pollHolds.all()).toEqual([]);
    expect(await state.progressDelays.all()).toEqual([]);
    expect(await state.forcedOutcomes.all()).toEqual([]);
    expect(await state.counters.get('c')).toBe(0);
    expect(await state.faults.list()).toEqual([]);
    expect(await state.journal.query({})).toEqual([]);
    expect(await state.jobs.count()).toBe(0);
  });

  describe('snapshot rows (domain/snapshots/snapshot-rows.ts)', () => {
    const fill = async () => {
      await state.usage.setAnalyses(ORG_ID, '2026-10', 4);
      await state.usage.setAnalyses(ORG_ID, '2026-11', 2);
      await state.models.add(model('m-base', 'Nuclei'));
      await state.models.add(model('m-custom', 'Mine', { scope: 'custom', organizationId: OTHER_ORG_ID }));
      await state.images.put(image('img-1'));
      await state.images.put(image('img-2', { organizationId: OTHER_ORG_ID }));
      await state.predictions.put(prediction('pred-1', { status: 'COMPLETED', segmentationId: 'seg-1' }));
      await state.segmentations.put(segmentation('seg-1'));
      await state.shares.put(share('sh-1', { viewCount: 7, lastViewedAt: '2026-11-25T13:00:00.000Z' }));
      await state.clockOffsets.set('', 86_400_000);
      await state.clockOffsets.set(ORG_ID, 3_600_000);
      await state.clockOffsets.set(OTHER_ORG_ID, 60_000);
      await state.seed.markSeeded('2026-11-25T12:00:00.000Z');
      await state.planBounds.set(OTHER_ORG_ID, { storageCapImages: 9, monthlyAnalysisCap: 9 });
      await state.progressDelays.set('prediction', 'pred-1', { startDelayMs: 5, runDelayMs: 0 });
      await state.forcedOutcomes.set('organization', OTHER_ORG_ID, [{ status: 'FAILED', error: AWKWARD }]);
      await state.pollHolds.put('pred-1', { needed: 2, outcome: { status: 'FAILED', error: 'held' } });
      await state.heldMarks.hold('slot', ORG_ID, 'x', 60_000);
    };

    it('lists every month of usage and every model', async () => {
      await fill();
      expect(await state.usage.monthsOf(ORG_ID)).toEqual([
        { month: '2026-10', count: 4 },
        { month: '2026-11', count: 2 },
      ]);
      expect(await state.usage.monthsOf('nobody')).toEqual([]);
      expect((await state.models.all()).map((m) => m.id)).toEqual(['m-base', 'm-custom']);
    });

    it('reads every row, and writes them back into an emptied store as they were', async () => {
      await fill();
      const rows = await readSnapshotRows(state, { kind: 'mock' });
      expect(rows.settings.map((s) => s.key)).toEqual([
        'clock_offset_ms',
        `clock_offset_ms:${ORG_ID}`,
        `clock_offset_ms:${OTHER_ORG_ID}`,
        'held-outcome/pred-1',
        `progress/forced-next/${OTHER_ORG_ID}`,
        'progress/prediction/pred-1',
        'seeded_at',
        `self_service_plan:${OTHER_ORG_ID}`,
      ]);
      await state.organizations.insert(organization('org-3', 'Gone after the load'));
      await replaceState(state, rows);
      expect(await readSnapshotRows(state, { kind: 'mock' })).toEqual(rows);
      expect(await state.organizations.get('org-3')).toBeUndefined();
      expect((await state.organizationForKey(`sk_test_${ORG_ID}`))?.id).toBe(ORG_ID);
      expect((await state.shares.byToken('token-sh-1'))?.viewCount).toBe(7);
      expect(await state.usage.analyses(ORG_ID, '2026-10')).toBe(4);
    });

    it("reads one organization's rows, its settings and the base models, nothing of another's", async () => {
      await fill();
      const rows = await readSnapshotRows(state, { kind: 'organization', organizationId: ORG_ID });
      expect(rows.organizations.map((o) => o.id)).toEqual([ORG_ID]);
      expect(rows.models.map((m) => m.id)).toEqual(['m-base']);
      expect(rows.images.map((i) => i.id)).toEqual(['img-1']);
      expect(rows.settings.map((s) => s.key)).toEqual([
        `clock_offset_ms:${ORG_ID}`,
        'held-outcome/pred-1',
        'progress/prediction/pred-1',
      ]);
    });

    it('loads the settings rows of older snapshots into their tables, passing held marks over', async () => {
      await fill();
      const rows = await readSnapshotRows(state, { kind: 'mock' });
      const settings = [
        { key: `progress/forced-on/pred-1`, value: '{"status":"FAILED","error":"forced"}' },
        { key: `progress/defaults`, value: '{"startDelayMs":1,"runDelayMs":2}' },
        { key: `completing/${ORG_ID}/img-1`, value: '1764000000000' },
        { key: 'somebody-else/x', value: 'y' },
      ];
      await replaceState(state, { ...rows, settings });
      expect(await state.forcedOutcomes.get('prediction', 'pred-1')).toEqual([
        { status: 'FAILED', error: 'forced' },
      ]);
      expect(await state.progressDelays.get('defaults', '')).toEqual({ startDelayMs: 1, runDelayMs: 2 });
      expect(await state.heldMarks.isHeld('completing', ORG_ID, 'img-1')).toBe(false);
      expect(await state.clockOffsets.all()).toEqual([]);
      expect((await readSnapshotRows(state, { kind: 'mock' })).settings.map((s) => s.key)).toEqual([
        'progress/defaults',
        'progress/forced-on/pred-1',
      ]);
      await expect(
        replaceState(state, { ...rows, settings: [{ key: 'self_service_plan:org-1', value: '{' }] }),
      ).rejects.toThrow(/rows\/settings.jsonl: the value of "self_service_plan:org-1" cannot be read/);
      await expect(
        replaceState(state, { ...rows, settings: [{ key: 'clock_offset_ms', value: 'soon' }] }),
      ).rejects.toThrow(/"clock_offset_ms" cannot be read/);
    });

    it('a load that fails part-way leaves the state as it was', async () => {
      await fill();
      const before = await readSnapshotRows(state, { kind: 'mock' });
      const broken = { ...before, shares: [...before.shares, share('sh-2', { token: 'token-sh-1' })] };
      await expect(replaceState(state, broken)).rejects.toThrow();
      expect(await readSnapshotRows(state, { kind: 'mock' })).toEqual(before);
    });
  });
});
