/**
 * The mock's state in PostgreSQL, for several instances sharing one database: the `StateStore`
 * port of domain/state.ts. Tables are in migrations.ts; each group of tables in its own file.
 * Reads return fresh objects; a call joins the caller's transaction (connection.ts).
 */
import { hashApiKey, sameKeyHash } from '../../domain/api-keys.js';
import type { Organization } from '../../domain/organization-record.js';
import type {
  CounterTable,
  FaultTable,
  ImageTable,
  JobTable,
  JournalTable,
  ModelTable,
  OrganizationTable,
  PredictionTable,
  RateWindowTable,
  SegmentationTable,
  SettingsTable,
  ShareTable,
  StateStore,
  UsageTable,
} from '../../domain/state.js';
import type { Sql } from './connection.js';
import { jobTable } from './job-table.js';
import { modelTable, organizationTable, usageTable } from './organization-tables.js';
import { counterTable, faultTable, journalTable, rateWindowTable, settingsTable } from './shared-tables.js';
import { imageTable, predictionTable, segmentationTable, shareTable } from './work-tables.js';

/** Children before the rows they reference. */
const EVERY_TABLE = [
  'shares',
  'segmentations',
  'predictions',
  'images',
  'models',
  'analysis_usage',
  'api_key_hashes',
  'organizations',
  'settings',
  'counters',
  'rate_windows',
  'faults',
  'journal',
  'jobs',
];

export class PostgresStateStore implements StateStore {
  readonly organizations: OrganizationTable;
  readonly usage: UsageTable;
  readonly models: ModelTable;
  readonly images: ImageTable;
  readonly predictions: PredictionTable;
  readonly segmentations: SegmentationTable;
  readonly shares: ShareTable;
  readonly settings: SettingsTable;
  readonly counters: CounterTable;
  readonly rates: RateWindowTable;
  readonly faults: FaultTable;
  readonly journal: JournalTable;
  readonly jobs: JobTable;

  constructor(
    private readonly sql: Sql,
    journalCapacity: number,
  ) {
    this.organizations = organizationTable(sql);
    this.usage = usageTable(sql);
    this.models = modelTable(sql);
    this.images = imageTable(sql);
    this.predictions = predictionTable(sql);
    this.segmentations = segmentationTable(sql);
    this.shares = shareTable(sql);
    this.settings = settingsTable(sql);
    this.counters = counterTable(sql);
    this.rates = rateWindowTable(sql);
    this.faults = faultTable(sql);
    this.journal = journalTable(sql, journalCapacity);
    this.jobs = jobTable(sql);
  }

  transaction<T>(work: () => Promise<T>): Promise<T> {
    return this.sql.transaction(work);
  }

  async organizationForKey(key: string): Promise<Organization | undefined> {
    const hash = hashApiKey(key);
    const row = await this.sql.row(
      'SELECT organization_id, key_hash FROM api_key_hashes WHERE key_hash = $1',
      [hash],
    );
    // The index finds the row; the bytes are still compared in constant time.
    if (!row || !sameKeyHash(row.key_hash as string, hash)) return undefined;
    return this.organizations.get(row.organization_id as string);
  }

  async clear(): Promise<void> {
    await this.sql.transaction(async () => {
      for (const table of EVERY_TABLE) await this.sql.rows(`DELETE FROM ${table}`);
    });
  }

  close(): Promise<void> {
    return this.sql.close();
  }
}
