/**
 * The guards of the PostgreSQL engine, proved across instances: three stores (three connection
 * pools, as three mock instances would have) on one database, racing.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OrganizationLimits } from '../../domain/abuse-limits.js';
import { DomainError } from '../../domain/errors.js';
import type { ShareRecord } from '../../domain/shares/share-record.js';
import type { StateStore } from '../../domain/state.js';
import { startTestPostgres, type TestPostgres } from '../../../test-support/test-postgres.js';
import { openPostgresStateStore } from './index.js';

const ORG_ID = 'org-1';
const CAP = 5;
const ATTEMPTS = 30;

let postgres: TestPostgres;
let url: string;
let instances: StateStore[];

beforeAll(async () => {
  postgres = await startTestPostgres();
  url = await postgres.newDatabase();
  instances = await Promise.all(
    [1, 2, 3].map(() => openPostgresStateStore({ url, poolSize: ATTEMPTS / 3, statementTimeoutMs: 30_000 })),
  );
});
afterAll(async () => {
  await Promise.all(instances?.map((store) => store.close()) ?? []);
  await postgres?.stop();
});
beforeEach(async () => {
  await instances[0].clear();
  await instances[0].organizations.insert({
    id: ORG_ID,
    name: 'Lab',
    plan: { name: 'pro', storageCapImages: CAP, monthlyAnalysisCap: CAP },
    apiKeys: [],
  });
});

/** `count` calls, spread over the three instances in turn, all started at once. */
const spread = <T>(count: number, call: (store: StateStore, i: number) => Promise<T>) =>
  Promise.allSettled(Array.from({ length: count }, (_, i) => call(instances[i % 3], i)));

const image = (id: string) => ({
  id,
  organizationId: ORG_ID,
  name: id,
  imageType: 'TIFF' as const,
  size: 1,
  shape: null,
  uploadStatus: 'uploading' as const,
  uploadError: null,
  createdAt: '2026-11-25T12:00:00.000Z',
  processedAt: null,
  metadata: {},
  folderId: null,
  storageKey: `images/${id}`,
  multipartUploadId: null,
  conversionAttempts: 0,
  derived: null,
});

/** Resolves once `parties` callers are waiting on it: every one has done its check before any writes. */
function barrier(parties: number): () => Promise<void> {
  let arrived = 0;
  let open: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return () => {
    if (++arrived === parties) open();
    return opened;
  };
}

describe('the storage cap across three instances', () => {
  const upload = async (store: StateStore, i: number, beforeWrite: () => Promise<unknown>, lock: boolean) =>
    store.transaction(async () => {
      if (lock) await store.organizations.lock(ORG_ID);
      const count = await store.images.countOf(ORG_ID);
      await beforeWrite();
      if (count >= CAP) throw new DomainError('cap_reached', 'storage cap reached');
      await store.images.put(image(`img-${i}`));
    });

  it('holds exactly: 30 concurrent "count, then insert below the cap" with the organization locked make 5 rows', async () => {
    // Each check waits a moment before its write, to give another transaction every chance to slip in.
    const results = await spread(ATTEMPTS, (store, i) =>
      upload(store, i, () => new Promise((resolve) => setTimeout(resolve, 2)), true),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(CAP);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused.map((r) => (r.reason as DomainError).kind)).toEqual(
      Array(ATTEMPTS - CAP).fill('cap_reached'),
    );
    expect(await instances[1].images.countOf(ORG_ID)).toBe(CAP);
  });

  it('does not hold without the lock at READ COMMITTED: all 30 check before any writes, and all 30 insert', async () => {
    // The barrier makes the race certain instead of likely: every transaction has counted 0 rows
    // before the first one writes, as the lock would have prevented.
    const allChecked = barrier(ATTEMPTS);
    const results = await spread(ATTEMPTS, (store, i) => upload(store, i, allChecked, false));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(ATTEMPTS);
    expect(await instances[1].images.countOf(ORG_ID)).toBe(ATTEMPTS);
  });
});

describe('the guard indexes', () => {
  const liveShare = (id: string): ShareRecord => ({
    id,
    organizationId: ORG_ID,
    segmentationId: 'seg-1',
    token: `token-${id}`,
    viewCount: 0,
    lastViewedAt: null,
    createdAt: '2026-11-25T12:00:00.000Z',
    revokedAt: null,
  });

  it('let one live share per segmentation commit; a check-then-insert that lost reruns and finds the winner', async () => {
    const allChecked = barrier(ATTEMPTS);
    const results = await spread(ATTEMPTS, (store, i) =>
      store.transaction(async () => {
        const live = await store.shares.liveFor('seg-1');
        await allChecked();
        if (live) return live.id;
        await store.shares.put(liveShare(`sh-${i}`));
        return `sh-${i}`;
      }),
    );
    // Every request answers (none fails), and all answer with the one share that exists.
    const answers = results.map((r) => (r.status === 'fulfilled' ? r.value : String(r.reason)));
    const [winner] = await instances[2].shares.idsOfSegmentation('seg-1');
    expect(await instances[2].shares.idsOfSegmentation('seg-1')).toHaveLength(1);
    expect(new Set(answers)).toEqual(new Set([winner]));
  });

  it('refuse a second live share written outside a transaction with the domain’s invalid_state, never a 5xx', async () => {
    const results = await spread(9, (store, i) => store.shares.put(liveShare(`sh-${i}`)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r): r is PromiseRejectedResult => r.status === 'rejected'))
      expect(r.reason).toMatchObject({ name: 'DomainError', kind: 'invalid_state' });
  });

  it('let one identical prediction be in flight per image and model', async () => {
    const results = await spread(12, (store, i) =>
      store.predictions.put({
        id: `p-${i}`,
        organizationId: ORG_ID,
        imageId: 'img-1',
        modelId: 'model-1',
        status: i % 2 ? 'SUBMITTED' : 'STARTED',
        createdAt: '2026-11-25T12:00:00.000Z',
        startedAt: null,
        finishedAt: null,
        segmentationId: null,
        cellCount: null,
        error: null,
        runAttempts: 0,
      }),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await instances[0].predictions.withStatus('SUBMITTED', 'STARTED')).toHaveLength(1);
  });
});

describe('jobs across three instances', () => {
  it('are never claimed by two workers at once', async () => {
    for (let i = 0; i < 40; i++) await instances[0].jobs.enqueue('prediction', `p-${i}`);
    const claims = await spread(60, (store, i) => store.jobs.claim(`worker-${i}`, ['prediction'], 60_000));
    const claimed = claims.map((r) =>
      r.status === 'fulfilled' ? r.value?.subjectId : `failed: ${r.reason}`,
    );
    const subjects = claimed.filter((subject) => subject !== undefined);
    expect(subjects).toHaveLength(40);
    expect(new Set(subjects).size).toBe(40);
  });

  it('stay with a killed worker until its lease runs out, then go to another, counted as a second attempt', async () => {
    const doomed = await openPostgresStateStore({ url, poolSize: 1 });
    await doomed.jobs.enqueue('prediction', 'held');
    await doomed.jobs.enqueue('prediction', 'short');
    expect(await doomed.jobs.claim('doomed', ['prediction'], 60_000)).toMatchObject({ subjectId: 'held' });
    expect(await doomed.jobs.claim('doomed', ['prediction'], 200)).toMatchObject({ subjectId: 'short' });
    // Killed: its connections are gone, it renews nothing. The lease, not the connection, holds the job.
    await doomed.close();
    let next;
    do next = await instances[1].jobs.claim('survivor', ['prediction'], 60_000);
    while (next === undefined);
    expect(next).toEqual({ kind: 'prediction', subjectId: 'short', attempts: 2 });
    expect(await instances[2].jobs.claim('third', ['prediction'], 60_000)).toBeUndefined();
    expect(await instances[1].jobs.finish('prediction', 'short', 'survivor')).toBe(true);
  });
});

it('gives the last hit of a `times: 1` fault to exactly one instance', async () => {
  await instances[0].faults.add({ operationId: 'getImage', status: 503, times: 1 });
  const taken = await spread(30, (store) => store.faults.take('getImage', ORG_ID, () => 0));
  expect(taken.filter((r) => r.status === 'fulfilled' && r.value)).toHaveLength(1);
  expect(taken.every((r) => r.status === 'fulfilled')).toBe(true);
});

it('loses no increment of a counter across instances', async () => {
  await spread(30, (store) => store.counters.increment('polls'));
  expect(await instances[0].counters.get('polls')).toBe(30);
});

describe('the abuse limits across three instances (domain/abuse-limits.ts)', () => {
  const LIMIT = 3;
  const limitsOf = (store: StateStore) =>
    new OrganizationLimits(store, {
      storedBytes: 3 * LIMIT,
      openUploads: LIMIT,
      concurrentPredictions: LIMIT,
    });
  const kinds = (results: PromiseSettledResult<unknown>[]) =>
    results
      .filter((r): r is PromiseRejectedResult => r.status === 'rejected')
      .map((r) => (r.reason as DomainError).kind);

  it('open uploads: 30 concurrent opens make exactly the limit, the rest answer too_many', async () => {
    const results = await spread(ATTEMPTS, (store, i) =>
      store.transaction(async () => {
        await store.organizations.lock(ORG_ID);
        await limitsOf(store).assertRoomForImage(ORG_ID, { size: 1, resumable: true });
        await store.images.put({ ...image(`img-${i}`), multipartUploadId: `up-${i}` });
      }),
    );
    expect(kinds(results)).toEqual(Array(ATTEMPTS - LIMIT).fill('too_many'));
    expect(await instances[1].images.footprintOf(ORG_ID)).toEqual({ bytes: LIMIT, openUploads: LIMIT });
  });

  it('stored bytes: 30 concurrent images of 3 bytes under a 9-byte limit make exactly 3', async () => {
    const results = await spread(ATTEMPTS, (store, i) =>
      store.transaction(async () => {
        await store.organizations.lock(ORG_ID);
        await limitsOf(store).assertRoomForImage(ORG_ID, { size: 3, resumable: false });
        await store.images.put({ ...image(`img-${i}`), size: 3 });
      }),
    );
    expect(kinds(results)).toEqual(Array(ATTEMPTS - LIMIT).fill('cap_reached'));
    expect((await instances[2].images.footprintOf(ORG_ID)).bytes).toBe(3 * LIMIT);
  });

  it('predictions in flight: 30 concurrent predicts make exactly the limit', async () => {
    const results = await spread(ATTEMPTS, (store, i) =>
      store.transaction(async () => {
        await store.organizations.lock(ORG_ID);
        await limitsOf(store).assertPredictionSlot(ORG_ID);
        await store.predictions.put({
          id: `p-${i}`,
          organizationId: ORG_ID,
          imageId: `img-${i}`,
          modelId: 'model-1',
          status: 'SUBMITTED',
          createdAt: '2026-11-25T12:00:00.000Z',
          startedAt: null,
          finishedAt: null,
          segmentationId: null,
          cellCount: null,
          error: null,
          runAttempts: 0,
        });
      }),
    );
    expect(kinds(results)).toEqual(Array(ATTEMPTS - LIMIT).fill('too_many'));
    expect(await instances[0].predictions.inFlightCountOf(ORG_ID)).toBe(LIMIT);
  });
});
