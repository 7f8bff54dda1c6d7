import type { WiredServices } from './domain-services.js';
import { sweepDataFolder } from '../stores/files/startup-sweep.js';
import { fileSystemNow } from '../stores/files/sweep-age.js';

/** The start-up sweep of a kept data folder, running in the background. */
export interface BackgroundSweep {
  /** Settles when the sweep ends or stops; never rejects. */
  readonly settled: Promise<void>;
  stop(): void;
}

/** A fresh data folder has nothing to sweep. */
export const NO_SWEEP: BackgroundSweep = { settled: Promise.resolve(), stop() {} };

export type KeptFolder = WiredServices & {
  /** The mock owns its data folder alone (its own SQLite file), not a shared database's. */
  soleOwner: boolean;
  /** On a shared folder, what something touched this recently may be another instance's work. */
  sharedGraceMs: number;
  /** Told when the sweep fails (it is run again at the next start). */
  onSweepFailed?: (error: unknown) => void;
};

/**
 * A start on a kept data folder: the work a stopped process left in flight is taken back, then the
 * sweep of files no row refers to starts in the background.
 */
export async function resumeKeptFolder(kept: KeptFolder): Promise<BackgroundSweep> {
  const { state, store, paths, clock, soleOwner } = kept;
  // Read before any work of this process writes a file: what changes later is not the sweep's.
  const startedAt = await fileSystemNow(paths.incoming);
  // The recoveries touch only the work in flight (bounded by the organizations' limits), and take
  // back the leases of the process before this one's worker starts claiming.
  await kept.images.recover({ soleOwner });
  await kept.predictions.recoverInFlight({ soleOwner });
  // The sweep reads every row and checks every file: it runs while the mock answers (see
  // startup-sweep.ts for why answers stay right meanwhile). Another instance's files in progress
  // are young: on a shared folder only what nothing has touched for sharedGraceMs goes.
  const stopping = new AbortController();
  const settled = sweepDataFolder(state, store, paths, () => clock.nowIso(), {
    startedAt,
    graceMs: soleOwner ? 0 : kept.sharedGraceMs,
    signal: stopping.signal,
  }).then(
    () => undefined,
    (error: unknown) => {
      if (!stopping.signal.aborted) kept.onSweepFailed?.(error);
    },
  );
  return { settled, stop: () => stopping.abort() };
}
