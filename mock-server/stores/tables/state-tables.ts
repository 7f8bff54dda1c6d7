/**
 * The StateStore port's tables as both engines serve them (domain/state.ts), each written once in
 * this folder; `perform` runs one method's statements on the engine (SQLite at once behind its
 * transaction gate, PostgreSQL awaited).
 *
 *   stateTables(dialect, perform)   the tables
 *   class XStore extends TableHolder   a store that holds them (serveTables, once it can perform)
 */
import type {
  CounterTable,
  FaultTable,
  ImageTable,
  JournalTable,
  RateWindowTable,
  JobTable,
  ModelTable,
  OrganizationTable,
  PredictionTable,
  SegmentationTable,
  SettingsTable,
  ShareTable,
  UsageTable,
} from '../../domain/state.js';
import { withKeyWritesReported } from '../../domain/key-cache.js';
import type { Dialect } from './dialect.js';
import { jobTable } from './job-table.js';
import { modelTable, organizationTable, usageTable } from './organization-tables.js';
import { settingsTable } from './settings-table.js';
import { bind, type Work } from './work.js';
import { imageTable, predictionTable, segmentationTable, shareTable } from './work-tables.js';

export interface StateTables {
  organizations: OrganizationTable;
  usage: UsageTable;
  models: ModelTable;
  images: ImageTable;
  predictions: PredictionTable;
  segmentations: SegmentationTable;
  shares: ShareTable;
  settings: SettingsTable;
  jobs: JobTable;
}

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
  'settings',
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
    settings: bind(settingsTable, perform),
    jobs: bind(jobTable(dialect), perform),
  };
}

/**
 * What a store of either engine holds: the shared tables, its key cache told of every key write,
 * and the control plane's tables each engine keeps its own way (SQLite in its one process's memory,
 * stores/memory/; PostgreSQL in tables every instance sees).
 */
export abstract class TableHolder implements StateTables {
  organizations!: OrganizationTable;
  usage!: UsageTable;
  models!: ModelTable;
  images!: ImageTable;
  predictions!: PredictionTable;
  segmentations!: SegmentationTable;
  shares!: ShareTable;
  settings!: SettingsTable;
  jobs!: JobTable;
  counters!: CounterTable;
  rates!: RateWindowTable;
  faults!: FaultTable;
  journal!: JournalTable;

  protected serveTables(tables: StateTables, keysChanged: () => Promise<void> | void): void {
    Object.assign(this, tables);
    this.organizations = withKeyWritesReported(tables.organizations, keysChanged);
  }
}
