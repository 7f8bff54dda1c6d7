/**
 * Snapshots of the mock's state (`GET`/`POST /__mock/snapshot`, `--snapshot FILE`): the rows of
 * every table and the files they point at, in one archive (snapshot-format.ts). Taking one reads
 * the state in one transaction; loading one stages and checks the whole archive first, and only
 * then replaces the state: a refused archive changes nothing.
 */
import { Readable } from 'node:stream';
import { DomainError } from '../errors.js';
import type { ImageRecord } from '../images/image-record.js';
import type { StateStore } from '../state.js';
import {
  INTERFACE_VERSION,
  SNAPSHOT_FORMAT,
  SNAPSHOT_TABLES,
  SNAPSHOT_VERSION,
  SnapshotRefused,
  SnapshotSourceChanged,
  canonicalJson,
  derivedEntry,
  objectEntry,
  rowsEntryName,
  segmentationEntry,
  sha256Hex,
  type SnapshotManifest,
  type SnapshotTable,
} from './snapshot-format.js';
import { checkHeldOutcomes, heldSegmentations } from './held-outcomes.js';
import type {
  SnapshotArchives,
  SnapshotFile,
  SnapshotFileStore,
  SnapshotLimits,
  WrittenArchive,
} from './snapshot-ports.js';
import { checkReferences, parseTableRows } from './snapshot-row-checks.js';
import { heldUntilRead } from './take-hold.js';
import { checkSegmentationResult } from './segmentation-result-check.js';
import { readSnapshotRows, replaceState, type SnapshotRows, type SnapshotScope } from './snapshot-rows.js';

export interface SnapshotServiceParts {
  state: StateStore;
  archives: SnapshotArchives;
  files: SnapshotFileStore;
  limits: SnapshotLimits;
  /**
   * Takes under way at once, each holding a whole archive on disk until its answer is read: the
   * operator's, and apart from them the organizations' together.
   */
  takesAtOnce: number;
  /** A take whose answer is not read for this long is cut, and its place freed. */
  stallMs: number;
  /** Runs `swap` with no background work writing state, and settles the services on what it left. */
  whileQuiet(swap: () => Promise<void>): Promise<void>;
}

const EPOCH = '1970-01-01T00:00:00.000Z';
/** Takes of the archive before a state that keeps changing under it is answered 503. */
const TAKE_ATTEMPTS = 3;

export class SnapshotService {
  /** Takes whose archive is being written or read out, by scope: the operator's, the organizations'. */
  private readonly taking: Record<SnapshotScope['kind'], number> = { mock: 0, organization: 0 };
  /** Organizations with a take under way: one each, so one cannot hold every organization's place. */
  private readonly takingOrganizations = new Set<string>();

  constructor(private readonly parts: SnapshotServiceParts) {}

  /**
   * The archive of the state as it is now, refused (to be taken again shortly) past `takesAtOnce`
   * takes under way of the same kind: each holds its archive on disk until it is read, so many at
   * once filled the disk. The operator's takes have places of their own, so organizations' takes
   * never turn them away, and an organization holds one place at a time. A take holds its place
   * until its last byte is handed to the answer, it is given up, or its answer stalls (take-hold.ts).
   * Counted in this instance's memory, as the archives are on this instance's disk.
   */
  async take(scope: SnapshotScope): Promise<WrittenArchive> {
    const { takesAtOnce, stallMs } = this.parts;
    const { kind } = scope;
    const organization = scope.kind === 'organization' ? scope.organizationId : undefined;
    if (organization !== undefined && this.takingOrganizations.has(organization))
      throw new DomainError(
        'store_unavailable',
        "This organization's own snapshot is being taken on this instance: one at a time; take it again once that answer is read.",
        1,
      );
    if (this.taking[kind] >= takesAtOnce)
      throw new DomainError(
        'store_unavailable',
        `Snapshots being taken on this instance${kind === 'mock' ? ' by the operator' : ' by organizations'}: ${this.taking[kind]}, as many as --snapshot-takes-at-once (${takesAtOnce}) allows; take it again shortly.`,
        1,
      );
    this.taking[kind]++;
    if (organization !== undefined) this.takingOrganizations.add(organization);
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      this.taking[kind]--;
      if (organization !== undefined) this.takingOrganizations.delete(organization);
    };
    try {
      const archive = await this.takeAgainIfChanged(scope);
      return {
        size: archive.size,
        read: () => heldUntilRead(archive.read(), archive.size, release, stallMs),
      };
    } catch (error) {
      release();
      throw error;
    }
  }

  /**
   * A delete that removes a file between the manifest and its entry makes the take start again
   * from the rows (which no longer hold what was deleted); a state that keeps changing under it is
   * answered 503, to be taken again.
   */
  private async takeAgainIfChanged(scope: SnapshotScope): Promise<WrittenArchive> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.takeOnce(scope);
      } catch (error) {
        if (!(error instanceof SnapshotSourceChanged)) throw error;
        if (attempt === TAKE_ATTEMPTS)
          throw new DomainError(
            'store_unavailable',
            `The state changed while the snapshot was taken (${error.entry} went), ${TAKE_ATTEMPTS} times: take it again.`,
            1,
          );
      }
    }
  }

  private async takeOnce(scope: SnapshotScope): Promise<WrittenArchive> {
    const rows = await readSnapshotRows(this.parts.state, scope);
    const files = await this.parts.files.filesOf({
      ...rows,
      segmentations: [...rows.segmentations, ...heldSegmentations(rows.settings)],
    });
    const portable: SnapshotRows = { ...rows, images: rows.images.map(portableImage) };
    const rowFiles = SNAPSHOT_TABLES.map((table): SnapshotFile => {
      const list = portable[table] as unknown[];
      const bytes = Buffer.from(list.map((row) => `${canonicalJson(row)}\n`).join(''));
      return {
        name: rowsEntryName(table),
        size: bytes.length,
        sha256: sha256Hex(bytes),
        open: async () => Readable.from([bytes]),
      };
    });
    const entries = [...rowFiles, ...files];
    const manifest: SnapshotManifest = {
      format: SNAPSHOT_FORMAT,
      version: SNAPSHOT_VERSION,
      interface_version: INTERFACE_VERSION,
      created: latestChange(rows),
      scope:
        scope.kind === 'mock'
          ? { kind: 'mock' }
          : { kind: 'organization', organization_id: scope.organizationId },
      tables: Object.fromEntries(
        SNAPSHOT_TABLES.map((t) => [t, rows[t].length]),
      ) as SnapshotManifest['tables'],
      entries: entries.map(({ name, size, sha256 }) => ({ name, size, sha256 })),
    };
    return this.parts.archives.write(manifest, entries);
  }

  /** Answers what it brought back: rows per table, and how many files. */
  async load(input: AsyncIterable<Uint8Array>) {
    const staged = await this.parts.archives.stage(input, this.parts.limits);
    try {
      const { manifest } = staged;
      const parsed: Partial<Record<SnapshotTable, unknown[]>> = {};
      for (const table of SNAPSHOT_TABLES) {
        const text = (await staged.read(rowsEntryName(table))).toString('utf8');
        parsed[table] = parseTableRows(table, text, manifest.tables[table]);
      }
      const rows = parsed as unknown as SnapshotRows;
      checkReferences(rows);
      // Those of outcomes held until a poll have their files here too, and become rows later.
      const segmentations = [...rows.segmentations, ...checkHeldOutcomes(rows)];
      const fileNames = checkFiles({ ...rows, segmentations }, staged.names);
      const imageOf = new Map(rows.images.map((image) => [image.id, image]));
      for (const segmentation of segmentations) {
        const bytes = await staged.read(segmentationEntry(segmentation.id, 'result.json'));
        checkSegmentationResult(segmentation, imageOf.get(segmentation.imageId), bytes);
      }
      await this.parts.whileQuiet(async () => {
        const before = await readSnapshotRows(this.parts.state, { kind: 'mock' });
        const images = await this.parts.files.install({ ...rows, segmentations }, staged);
        await replaceState(this.parts.state, { ...rows, images });
        // The replaced state's files that no loaded row took over (those it did were overwritten).
        const keys = new Set(rows.images.map((i) => i.storageKey));
        const imageIds = new Set(rows.images.map((i) => i.id));
        const segmentationIds = new Set(segmentations.map((s) => s.id));
        await this.parts.files.remove({
          storageKeys: before.images.map((i) => i.storageKey).filter((key) => !keys.has(key)),
          imageIds: before.images.map((i) => i.id).filter((id) => !imageIds.has(id)),
          segmentationIds: [...before.segmentations, ...heldSegmentations(before.settings)]
            .map((s) => s.id)
            .filter((id) => !segmentationIds.has(id)),
        });
      });
      return { tables: manifest.tables, files: fileNames };
    } finally {
      await staged.discard();
    }
  }
}

/** An image row as the archive holds it: its derived files by archive name, not by this machine's paths. */
function portableImage(image: ImageRecord): ImageRecord {
  if (image.derived === null) return image;
  return {
    ...image,
    derived: {
      ...image.derived,
      previewPath: derivedEntry(image.id, 'preview.png'),
      thumbnailPath: derivedEntry(image.id, 'thumbnail.png'),
    },
  };
}

/** The latest time any row records: the same state gives the same `created`. */
function latestChange(rows: SnapshotRows): string {
  const times = [
    ...rows.images.flatMap((r) => [r.createdAt, r.processedAt]),
    ...rows.predictions.flatMap((r) => [r.createdAt, r.startedAt, r.finishedAt]),
    ...rows.segmentations.map((r) => r.createdAt),
    ...rows.shares.flatMap((r) => [r.createdAt, r.lastViewedAt, r.revokedAt]),
  ].filter((t): t is string => typeof t === 'string');
  return times.reduce((latest, t) => (t > latest ? t : latest), EPOCH);
}

/**
 * Every file entry belongs to a row, and every file a row cannot do without is there: a converted
 * image's preview and thumbnail, a segmentation's outlines (and its preview when it has one).
 * Answers how many file entries there are.
 */
function checkFiles(rows: SnapshotRows, names: readonly string[]): number {
  const present = new Set(names);
  const expected = new Set<string>();
  const need = (name: string) => {
    if (!present.has(name)) throw new SnapshotRefused(`entry "${name}" is missing: a row points at it`);
    expected.add(name);
  };
  for (const image of rows.images) {
    expected.add(objectEntry(image.storageKey));
    if (image.derived === null) continue;
    const d = image.derived as Partial<NonNullable<ImageRecord['derived']>>;
    if (!Number.isSafeInteger(d.width) || !Number.isSafeInteger(d.height))
      throw new SnapshotRefused(
        `rows/images.jsonl: image ${image.id} has derived files but no width and height`,
      );
    need(derivedEntry(image.id, 'preview.png'));
    need(derivedEntry(image.id, 'thumbnail.png'));
    expected.add(derivedEntry(image.id, 'plane.bin'));
  }
  for (const segmentation of rows.segmentations) {
    need(segmentationEntry(segmentation.id, 'result.json'));
    if (segmentation.hasPreview) need(segmentationEntry(segmentation.id, 'preview.png'));
  }
  const rowFiles = new Set<string>(SNAPSHOT_TABLES.map(rowsEntryName));
  const files = names.filter((name) => !rowFiles.has(name));
  for (const name of files)
    if (!expected.has(name)) throw new SnapshotRefused(`entry "${name}" belongs to no row of the snapshot`);
  return files.length;
}
