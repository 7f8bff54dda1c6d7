/**
 * What the worker reports for the instance's metrics: the jobs it runs now, and the leases it
 * lost while running (renewal refused), which its own cancellations and stop are not, nor a lease
 * that lapsed while the database did not answer and no other worker claimed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { domainWorld, type DomainWorld } from '../../../test-support/domain-world.js';
import { eventually } from '../../../test-support/launched-mock.js';
import { openDatabase } from '../../stores/sqlite/database/open-database.js';
import { SqliteStateStore } from '../../stores/sqlite/sqlite-state-store.js';
import { JobWorker } from './job-worker.js';

let world: DomainWorld;
let worker: JobWorker;

beforeEach(async () => {
  world = await domainWorld();
  // Renewed every 200 ms, so a refused renewal is seen within the test's patience; a lease of 60 ms
  // ran out on a loaded machine whose timers came late, and the job kept was counted lost too.
  worker = new JobWorker(world.state, { leaseMs: 600, concurrency: 4, pollMs: 10, transientRetryMs: 0 });
  worker.handle(
    'conversion',
    (_lease, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve())),
    async () => undefined,
  );
});

afterEach(async () => {
  await worker.stop();
  await world.close();
});

it('counts a job held while it runs, and a lease lost when its job is removed elsewhere', async () => {
  await world.state.jobs.enqueue('conversion', 'kept');
  await world.state.jobs.enqueue('conversion', 'removed');
  worker.start();
  expect(await eventually(() => worker.leases.held === 2, 5_000)).toBe(true);
  expect(worker.leases.lost).toBe(0);

  // Another instance removes a job (its image was deleted there): this worker's renewal is refused.
  await world.state.jobs.cancel('conversion', 'removed');
  expect(await eventually(() => worker.leases.held === 1, 5_000)).toBe(true);
  expect(worker.leases.lost).toBe(1);

  // Its own cancellation is no lost lease.
  await worker.cancel('conversion', ['kept']);
  expect(worker.leases).toEqual({ held: 0, lost: 1 });
});

it('answers on stop whether it was claiming, so a pause restarts only a worker that ran', async () => {
  expect(await worker.stop()).toBe(false);
  worker.start();
  expect(await worker.stop()).toBe(true);
  expect(await worker.stop()).toBe(false);
});

/**
 * A worker on a store of its own (the world's worker would claim the job once its lease lapsed)
 * whose database can go quiet: `refuse` answers every claim and renewal with an error meanwhile;
 * `stall` holds renewals until a claim is answered after it, as a pool that queued them would.
 */
async function throughAnOutage(kind: 'refuse' | 'stall') {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'job-worker-outage-'));
  const real = new SqliteStateStore(openDatabase(dir));
  let down = false;
  let claimedAgain: () => void = () => undefined;
  let reclaimed = Promise.resolve();
  const jobs = real.jobs;
  const claim: typeof jobs.claim = async (...args) => {
    if (down) throw new Error('connection refused');
    const lease = await jobs.claim(...args);
    if (lease) claimedAgain();
    return lease;
  };
  const renew: typeof jobs.renew = async (...args) => {
    if (down && kind === 'refuse') throw new Error('connection refused');
    if (down) await reclaimed;
    return jobs.renew(...args);
  };
  const state = Object.assign(Object.create(real) as typeof real, { jobs: { ...jobs, claim, renew } });
  const outlived = new JobWorker(state, { leaseMs: 600, concurrency: 4, pollMs: 10, transientRetryMs: 0 });
  outlived.handle(
    'conversion',
    (_lease, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve())),
    async () => undefined,
  );
  try {
    await jobs.enqueue('conversion', 'through-an-outage');
    outlived.start();
    expect(await eventually(() => outlived.leases.held === 1, 5_000)).toBe(true);
    reclaimed = new Promise<void>((resolve) => (claimedAgain = resolve));
    down = true;
    await new Promise((resolve) => setTimeout(resolve, 1_200)); // two leases' time unanswered
    down = false;
    await new Promise((resolve) => setTimeout(resolve, 600)); // renewals and claims answered again
    return { leases: outlived.leases, jobsLeft: await jobs.count() };
  } finally {
    await outlived.stop();
    await real.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

it('keeps a job whose renewals failed past its lease while the database did not answer, no other claim having taken it', async () => {
  expect(await throughAnOutage('refuse')).toEqual({ leases: { held: 1, lost: 0 }, jobsLeft: 1 });
});

it('keeps it too when a renewal held by a stalled database is answered after the worker claimed the job again', async () => {
  // the late refusal is of the claim the run has left: the run goes on and its job stays queued
  expect(await throughAnOutage('stall')).toEqual({ leases: { held: 1, lost: 0 }, jobsLeft: 1 });
});

/**
 * A store that hands out one job when told (`offer`), each claim with one attempt more, and refuses
 * a renewal of any claim but the last: `claimElsewhere` is another worker's claim of it.
 */
function handedOutJobs() {
  let attempts = 0;
  let offered = 0;
  const finished: number[] = [];
  const jobs = {
    claim: async () => {
      if (offered <= 0) return undefined;
      offered--;
      return { kind: 'conversion' as const, subjectId: 'slow-to-stop', attempts: ++attempts };
    },
    renew: async (lease: { attempts: number }) => lease.attempts === attempts,
    finish: async () => finished.push(attempts) > 0,
    count: async () => offered,
    retryLater: async () => undefined,
    enqueue: async () => undefined,
  };
  return {
    state: { jobs } as unknown as ConstructorParameters<typeof JobWorker>[0],
    offer: () => offered++,
    claimElsewhere: () => attempts++,
    finished,
  };
}

it('starts no second run of a job it claims while its run stopped for a lost lease still settles, and that run does not finish the job', async () => {
  const store = handedOutJobs();
  const slow = new JobWorker(store.state, { leaseMs: 90, concurrency: 4, pollMs: 5, transientRetryMs: 0 });
  let live = 0;
  let most = 0;
  const starts: number[] = [];
  slow.handle(
    'conversion',
    (lease, signal) =>
      new Promise<void>((resolve) => {
        starts.push(lease.attempts);
        most = Math.max(most, ++live);
        // slow to settle once stopped, as a run waiting on a stalled database is
        signal.addEventListener('abort', () => setTimeout(() => resolve(void live--), 300));
      }),
    async () => undefined,
  );
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  try {
    store.offer();
    slow.start();
    expect(await eventually(() => starts.length === 1, 5_000)).toBe(true);
    store.claimElsewhere(); // the run's next renewal is refused: it stops, and settles in 300 ms
    expect(await eventually(() => slow.leases.lost === 1, 5_000)).toBe(true);
    store.offer(); // that claim lapsed, and this worker claims the job while its run settles
    await sleep(100);
    expect({ starts, live }).toEqual({ starts: [1], live: 1 });
    expect(await eventually(() => live === 0, 5_000)).toBe(true);
    expect(store.finished).toEqual([]); // the job is the later claim's, not the stopped run's
    store.offer(); // the claim made meanwhile lapsed unrenewed: the job is claimed, and run, again
    expect(await eventually(() => starts.length === 2, 5_000)).toBe(true);
    expect({ most, starts }).toEqual({ most: 1, starts: [1, 4] });
  } finally {
    await slow.stop();
  }
});
