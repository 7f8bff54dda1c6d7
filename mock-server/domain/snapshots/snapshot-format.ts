/**
 * The snapshot format (docs/persistence.md, "Snapshots"): one uncompressed tar whose first entry is
 * `manifest.json`, then one JSON-lines file per table (`rows/<table>.jsonl`, in SNAPSHOT_TABLES
 * order), then the files the rows point at (`files/...`, names in code-point order). The manifest lists every entry after
 * it with its size and SHA-256, so a reader checks each entry as it arrives and refuses the rest.
 *
 * Version 1 rows are the domain's records (domain/state.ts), keys sorted, with two changes: an
 * image's derived paths are archive names (the data folder they came from means nothing
 * elsewhere), and usage and settings get a row shape of their own. A change of the rows' shape
 * makes a new version, with an upgrade of each older version's rows, so older snapshots keep
 * loading (fixtures/snapshots/v1.tar proves it for version 1).
 */
import { createHash } from 'node:crypto';
import { DomainError } from '../errors.js';

export const SNAPSHOT_FORMAT = 'cellseg-mock-snapshot';
export const SNAPSHOT_VERSION = 1;
/** The interface the mock serves (openapi/openapi.yaml `info.version`), recorded so a reader knows what the rows were shaped for. */
export const INTERFACE_VERSION = '1.1.0';
export const MANIFEST_NAME = 'manifest.json';
/** A table's rows are parsed in memory: past this, a rows file is a bomb, whatever the archive's limits. */
const MAX_TABLE_BYTES = 256 * 1024 * 1024;

/** Tables in the order they are written and loaded (a row's references come before it). */
export const SNAPSHOT_TABLES = [
  'organizations',
  'usage',
  'models',
  'images',
  'predictions',
  'segmentations',
  'shares',
  'settings',
] as const;
export type SnapshotTable = (typeof SNAPSHOT_TABLES)[number];

export const rowsEntryName = (table: SnapshotTable) => `rows/${table}.jsonl`;

/** The largest count the tables keep (a 32-bit integer column): PostgreSQL refuses one past it. */
export const COUNT_MAX = 2 ** 31 - 1;

/** A whole number from 0 to `max`. */
export const isWholeUpTo = (value: unknown, max: number): value is number =>
  Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= max;

/** A whole number a 32-bit integer column holds. */
export const isCount = (value: unknown): value is number => isWholeUpTo(value, COUNT_MAX);

/** The settings key prefix of an outcome held until a poll (`held-outcome/<prediction id>`). */
export const HELD_OUTCOME = 'held-outcome/';

export interface ManifestEntry {
  name: string;
  size: number;
  sha256: string;
}

export interface SnapshotManifest {
  format: typeof SNAPSHOT_FORMAT;
  version: number;
  interface_version: string;
  /** The mock's clock at the latest change the snapshot holds: the same state gives the same bytes. */
  created: string;
  /** The whole mock, or one organization's own data (taken with its key). */
  scope: { kind: 'mock' } | { kind: 'organization'; organization_id: string };
  /** Rows per table. */
  tables: Record<SnapshotTable, number>;
  /** Every entry after the manifest, in archive order. */
  entries: ManifestEntry[];
}

export const sha256Hex = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** JSON with every object's keys sorted: the same record gives the same bytes, whichever engine read it. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

/** Why a snapshot cannot be loaded; nothing was changed (the HTTP layer answers 422, the start stops). */
export class SnapshotRefused extends DomainError {
  constructor(message: string) {
    super('invalid_input', `snapshot refused: ${message}`);
    this.name = 'SnapshotRefused';
  }
}

/**
 * A file the rows point at went (or changed size) between reading it for the manifest and writing
 * it: a delete ran during the take. The take starts again from the rows.
 */
export class SnapshotSourceChanged extends Error {
  constructor(readonly entry: string) {
    super(`${entry} changed while the snapshot was written`);
    this.name = 'SnapshotSourceChanged';
  }
}

/** Checks what the manifest says about itself; its entries are checked against the archive as they arrive. */
export function parseManifest(text: string): SnapshotManifest {
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new SnapshotRefused('manifest.json is not JSON');
  }
  if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest))
    throw new SnapshotRefused('manifest.json is not a JSON object');
  if (manifest.format !== SNAPSHOT_FORMAT)
    throw new SnapshotRefused(
      `manifest format is ${JSON.stringify(manifest.format)}, not "${SNAPSHOT_FORMAT}"`,
    );
  const version = manifest.version;
  if (!Number.isInteger(version) || (version as number) < 1)
    throw new SnapshotRefused(`manifest version ${JSON.stringify(version)} is not a version number`);
  if ((version as number) > SNAPSHOT_VERSION)
    throw new SnapshotRefused(
      `snapshot version ${String(version)} is newer than this mock reads (up to ${SNAPSHOT_VERSION})`,
    );
  const scope = manifest.scope as { kind?: unknown; organization_id?: unknown } | null | undefined;
  if (scope?.kind !== 'mock' && (scope?.kind !== 'organization' || typeof scope.organization_id !== 'string'))
    throw new SnapshotRefused('manifest scope must be {"kind":"mock"} or {"kind":"organization",...}');
  const tables = manifest.tables as Record<string, unknown> | undefined;
  if (!tables || typeof tables !== 'object') throw new SnapshotRefused('manifest has no tables');
  for (const name of Object.keys(tables))
    if (!(SNAPSHOT_TABLES as readonly string[]).includes(name))
      throw new SnapshotRefused(
        `manifest lists table "${name}", which version ${String(version)} does not have`,
      );
  for (const table of SNAPSHOT_TABLES)
    if (!Number.isInteger(tables[table]) || (tables[table] as number) < 0)
      throw new SnapshotRefused(`manifest has no row count for table "${table}"`);
  if (!Array.isArray(manifest.entries)) throw new SnapshotRefused('manifest has no entries list');
  const names = new Set<string>();
  for (const entry of manifest.entries as unknown[]) {
    const e = entry as Partial<ManifestEntry> | null;
    if (
      !e ||
      typeof e.name !== 'string' ||
      !Number.isSafeInteger(e.size) ||
      (e.size as number) < 0 ||
      typeof e.sha256 !== 'string' ||
      !/^[0-9a-f]{64}$/.test(e.sha256)
    )
      throw new SnapshotRefused(`manifest entry ${JSON.stringify(entry)} needs a name, a size and a sha256`);
    if (names.has(e.name)) throw new SnapshotRefused(`manifest lists "${e.name}" twice`);
    names.add(e.name);
    if (e.name.startsWith('rows/') && (e.size as number) > MAX_TABLE_BYTES)
      throw new SnapshotRefused(
        `${e.name} is ${e.size} bytes: a table's rows are read into memory, and may have at most ${MAX_TABLE_BYTES}`,
      );
  }
  for (const table of SNAPSHOT_TABLES)
    if (!names.has(rowsEntryName(table)))
      throw new SnapshotRefused(`manifest lists no ${rowsEntryName(table)} for table "${table}"`);
  if (typeof manifest.interface_version !== 'string' || typeof manifest.created !== 'string')
    throw new SnapshotRefused('manifest needs interface_version and created');
  return manifest as unknown as SnapshotManifest;
}

/** Where the files the rows point at sit in the archive. */
export const objectEntry = (storageKey: string) => `files/objects/${storageKey}`;
export const derivedEntry = (imageId: string, file: 'preview.png' | 'thumbnail.png' | 'plane.bin') =>
  `files/derived/${imageId}/${file}`;
export const segmentationEntry = (segmentationId: string, file: 'result.json' | 'preview.png') =>
  `files/segmentations/${segmentationId}/${file}`;
