import { SnapshotService } from '../domain/snapshots/snapshot-service.js';
import { DataFolderSnapshotFiles } from '../stores/snapshots/snapshot-file-store.js';
import { TarSnapshotArchives } from '../stores/snapshots/tar-archives.js';
import type { WiredServices } from './domain-services.js';
import type { BackgroundSweep } from './resume-kept-folder.js';

/** What a snapshot's swap of the state stops first and brings in line after. */
export type SwapParts = WiredServices & {
  sweep: BackgroundSweep;
  /** The mock owns its data folder alone (its own SQLite file), not a shared database's. */
  soleOwner: boolean;
};

/** Takes and loads snapshots of the whole state, swapping it in only while nothing else runs. */
export function snapshotService(parts: SwapParts): SnapshotService {
  const { config, paths, state, store } = parts;
  return new SnapshotService({
    state,
    archives: new TarSnapshotArchives(paths.snapshotStaging),
    files: new DataFolderSnapshotFiles(paths, store),
    limits: { maxBytes: config.snapshotMaxBytes, maxEntries: config.snapshotMaxEntries },
    takesAtOnce: config.snapshotTakesAtOnce,
    stallMs: config.idleTimeoutMs,
    whileQuiet: (swap) => state.replacing(() => swapWhileQuiet(parts, swap)),
  });
}

async function swapWhileQuiet(parts: SwapParts, swap: () => Promise<void>): Promise<void> {
  const { state, clock, images, predictions, segmentations, worker, soleOwner } = parts;
  // The sweep reads the state the swap replaces: it ends first.
  await parts.sweep.settled;
  const claiming = await worker.stop();
  await images.idle();
  try {
    await swap();
  } finally {
    // What the services keep beside the state follows the state now in place.
    await clock.refresh();
    clock.forgetOrganizations();
    segmentations.forgetAll();
    if ((await state.seed.seededAt()) === undefined) await state.seed.markSeeded(clock.nowIso());
    await images.recover({ soleOwner });
    await predictions.recoverInFlight({ soleOwner });
    if (claiming) worker.start();
  }
}
