import type { WiredServices } from './domain-services.js';
import type { BackgroundSweep } from './resume-kept-folder.js';
import type { Seeding } from './seeding.js';

/** What a reset, a wait for quiet and the end of the instance stop, empty or restart. */
export type LifecycleParts = WiredServices & {
  seeding: Seeding;
  sweep: BackgroundSweep;
  /** Stops what this mock opened: its database, and the children it did not borrow. */
  release: () => Promise<void>;
};

/** Services' reseed, idle and close. */
export function instanceLifecycle(parts: LifecycleParts) {
  const { state, clock, images, predictions, admin, runner, pools, seeding, worker, sweep, release } = parts;
  return {
    /** Reloads the seed into an empty state. */
    reseed(): Promise<void> {
      // One replacement of the state at a time, on every instance (a snapshot's swap is another).
      return state.replacing(async () => {
        await sweep.settled;
        const claiming = await worker.stop();
        for (const org of await state.organizations.all()) await admin.resetOrganization(org.id);
        await state.clear();
        await clock.refresh();
        clock.forgetOrganizations();
        // Fresh children: a reset hands back what their heaps and libvips grew to.
        await runner.recycle?.();
        await pools.convert.recycle();
        await seeding.seed();
        if (claiming) worker.start();
      });
    },
    /** Waits for the start-up sweep, and for conversions and predictions in flight. */
    async idle(): Promise<void> {
      await sweep.settled;
      await images.idle();
      await predictions.idle();
    },
    async close(): Promise<void> {
      // Rows of work in flight stay as they are, so it resumes after a restart; so does the sweep.
      sweep.stop();
      await sweep.settled;
      images.stop();
      predictions.stop();
      await worker.stop();
      await images.idle();
      await release();
    },
  };
}
