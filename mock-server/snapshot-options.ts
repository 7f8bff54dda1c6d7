import type { OptionEntry } from './config-option-entry.js';

/**
 * The settings of snapshots (docs/persistence.md, "Snapshots"): a snapshot to load at start, and
 * the bounds an archive coming in must keep (a snapshot is an uncompressed tar, so its size on the
 * wire is its size on disk).
 */
export const SNAPSHOT_OPTIONS = {
  /** Replaces the seed or the data folder's state; empty loads none. */
  snapshot: {
    env: 'SNAPSHOT_FILE',
    description: 'Snapshot archive to load at start (GET /__mock/snapshot makes one); replaces the state',
    default: '',
    shownDefault: 'none',
  },
  /** Bounds POST /__mock/snapshot and --snapshot alike. */
  snapshotMaxBytes: {
    description: 'Largest snapshot loaded (sum of its entries), bytes',
    default: 8 * 1024 ** 3,
    shownDefault: '8 GiB',
  },
  snapshotMaxEntries: {
    description: 'Most entries (rows files and files) of a snapshot loaded',
    default: 200_000,
  },
} satisfies Record<string, OptionEntry>;
