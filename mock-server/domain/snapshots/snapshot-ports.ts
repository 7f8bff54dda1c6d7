/**
 * What a snapshot needs from infrastructure (implemented in stores/snapshots/): an archive codec
 * that streams entries out and stages an archive coming in under limits, and the files the rows
 * point at, read out and put back in the data folder and the object store.
 */
import type { ManifestEntry, SnapshotManifest } from './snapshot-format.js';
import type { SnapshotRows } from './snapshot-rows.js';

/** One entry to write: its archive name, size and SHA-256, and its bytes when it is written. */
export interface SnapshotFile extends ManifestEntry {
  open(): Promise<NodeJS.ReadableStream>;
}

/** Bounds on an archive coming in, checked before its bytes are kept. */
export interface SnapshotLimits {
  /** Sum of every entry's size, manifest included. */
  maxBytes: number;
  /** Entries, manifest included. */
  maxEntries: number;
}

/** An archive whose every entry arrived whole and matched the manifest, in a staging folder. */
export interface StagedSnapshot {
  manifest: SnapshotManifest;
  /** Names of the entries after the manifest, in archive order. */
  names: readonly string[];
  read(name: string): Promise<Buffer>;
  /** The staged file of an entry, on this machine. */
  pathOf(name: string): string;
  /** Removes what is still staged (what `install` did not move into place). */
  discard(): Promise<void>;
}

/** An archive written whole before it is sent: its length, and its bytes, read once. */
export interface WrittenArchive {
  size: number;
  /** The bytes, once (the archive's file is already removed: they are held open for this read). */
  read(): NodeJS.ReadableStream;
}

export interface SnapshotArchives {
  /**
   * The archive, written whole before any byte of it is sent: the manifest, then `entries` in the
   * manifest's order, each opened as it is written. Throws SnapshotSourceChanged when an entry is
   * gone or no longer of its size (a delete since the files were read), nothing kept.
   */
  write(manifest: SnapshotManifest, entries: readonly SnapshotFile[]): Promise<WrittenArchive>;
  /** Reads an archive into staging; throws SnapshotRefused (nothing kept) when it is not whole and true. */
  stage(input: AsyncIterable<Uint8Array>, limits: SnapshotLimits): Promise<StagedSnapshot>;
}

export interface SnapshotFileStore {
  /** The files these rows point at that exist, by archive name (snapshot-format.ts), in name order. */
  filesOf(rows: SnapshotRows): Promise<SnapshotFile[]>;
  /**
   * Moves the staged files of these rows into place (the object store, derived/, segmentations/),
   * and answers the image rows with their derived paths made local.
   */
  install(rows: SnapshotRows, staged: StagedSnapshot): Promise<SnapshotRows['images']>;
  /** Removes the files of a replaced state that no loaded row took over. */
  remove(files: { storageKeys: string[]; imageIds: string[]; segmentationIds: string[] }): Promise<void>;
}
