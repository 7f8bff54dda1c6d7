/**
 * The settings of snapshots (docs/persistence.md, "Snapshots"): a snapshot to load at start, and
 * the bounds an archive coming in must keep (a snapshot is an uncompressed tar, so its size on the
 * wire is its size on disk). Kept apart from config-options.ts, which spreads them into OPTIONS.
 */
export interface SnapshotSettings {
  /** A snapshot archive loaded at start, replacing the seed or the data folder's state; empty loads none. */
  snapshot: string;
  /** Most bytes of all entries of a snapshot loaded (POST /__mock/snapshot or --snapshot). */
  snapshotMaxBytes: number;
  /** Most entries (files) of a snapshot loaded. */
  snapshotMaxEntries: number;
}

export const SNAPSHOT_OPTIONS = [
  {
    key: 'snapshot',
    env: 'SNAPSHOT_FILE',
    type: 'string',
    description: 'Snapshot archive to load at start (GET /__mock/snapshot makes one); replaces the state',
    default: () => '',
    shownDefault: 'none',
  },
  {
    key: 'snapshotMaxBytes',
    type: 'number',
    description: 'Largest snapshot loaded (sum of its entries), bytes',
    default: () => 8 * 1024 ** 3,
    shownDefault: '8 GiB',
  },
  {
    key: 'snapshotMaxEntries',
    type: 'number',
    description: 'Most entries (rows files and files) of a snapshot loaded',
    default: () => 200_000,
  },
] as const;
