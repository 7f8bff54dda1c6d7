/**
 * What the worker reports for the instance's metrics: the jobs it runs now, and the leases it
 * lost while running (renewal refused), which its own cancellations and stop are not.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { domainWorld, type DomainWorld } from '../../../test-support/domain-world.js';
import { eventually } from '../../../test-support/launched-mock.js';
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
