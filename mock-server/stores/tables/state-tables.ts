/**
 * The StateStore port's tables as both engines serve them (domain/state.ts), each written once in
 * this folder; `perform` runs one method's statements on the engine (SQLite at once behind its
 * transaction gate, PostgreSQL awaited).
 *
 *   stateTables(dialect, perform)   the tables
 *   class XStore extends TableHolder   a store that holds them (serveTables, once it can perform)
 */
import type { StateStore } from '../../domain/state.js';
import { withKeyWritesReported } from '../../domain/key-cache.js';
import type { Dialect } from './dialect.js';
import {
  clockOffsetTable,
  forcedOutcomeTable,
  planBoundsTable,
  progressDelayTable,
} from './control-plane-tables.js';
import { jobTable } from './job-table.js';
import { heldMarkTable, pollHoldTable, seedTable } from './mark-tables.js';
import { modelTable, organizationTable, usageTable } from './organization-tables.js';
import { bind, type Work } from './work.js';
import { imageTable, predictionTable, segmentationTable, shareTable } from './work-tables.js';

/** What a store serves besides its own methods: the port's tables. */
type StoreTables = Omit<
  StateStore,
  'transaction' | 'readAtOnce' | 'organizationForKey' | 'requestReads' | 'replacing' | 'clear' | 'close'
>;

/** The tables written once for both engines: every one but those each engine keeps its own way. */
export type StateTables = Omit<StoreTables, 'counters' | 'rates' | 'faults' | 'journal'>;

/** The tables both engines keep, children before the rows they reference (the order clear() empties them in). */
export const STATE_TABLES = [
  'shares',
  'segmentations',
  'predictions',
  'images',
  'models',
  'analysis_usage',
  'api_key_hashes',
  'organizations',
  'clock_offsets',
  'seed',
  'plan_bounds',
  'held_marks',
  'poll_holds',
  'progress_delays',
  'forced_outcomes',
  'jobs',
] as const;

export function stateTables(
  dialect: Dialect,
  perform: (work: Work<unknown>) => Promise<unknown>,
): StateTables {
  return {
    organizations: bind(organizationTable(dialect), perform),
    usage: bind(usageTable, perform),
    models: bind(modelTable, perform),
    images: bind(imageTable, perform),
    predictions: bind(predictionTable, perform),
    segmentations: bind(segmentationTable, perform),
    shares: bind(shareTable, perform),
    clockOffsets: bind(clockOffsetTable, perform),
    seed: bind(seedTable, perform),
    planBounds: bind(planBoundsTable, perform),
    heldMarks: bind(heldMarkTable(dialect), perform),
    pollHolds: bind(pollHoldTable, perform),
    progressDelays: bind(progressDelayTable, perform),
    forcedOutcomes: bind(forcedOutcomeTable, perform),
    jobs: bind(jobTable(dialect), perform),
  };
}

/**
 * What a store of either engine holds: the shared tables, its key cache told of every key write,
 * and the control plane's tables each engine keeps its own way (SQLite in its one process's memory,
 * stores/memory/; PostgreSQL in tables every instance sees).
 */
abstract class Holder {
  protected serveTables(tables: StateTables, keysChanged: () => Promise<void> | void): void {
    Object.assign(this, tables, { organizations: withKeyWritesReported(tables.organizations, keysChanged) });
  }
}

/** A Holder with every table as a field, each assigned by serveTables or by the store itself. */
export const TableHolder = Holder as abstract new () => Holder & {
  -readonly [K in keyof StoreTables]: StoreTables[K];
};
