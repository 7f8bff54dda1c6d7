/**
 * The mock's state in PostgreSQL, for several instances sharing one database: the `StateStore`
 * port of domain/state.ts. Tables are in migrations.ts; each group of tables in its own file.
 * Reads return fresh objects; a call joins the caller's transaction (connection.ts).
 */
import { randomUUID } from 'node:crypto';
import { hashApiKey, sameKeyHash } from '../../domain/api-keys.js';
import { KeyCache, withKeyWritesReported } from '../../domain/key-cache.js';
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
  /** Counts writes that changed a key's organization: a transaction that saw one invalidates again when it ends. */
  private keyWrites = 0;

  constructor(
    private readonly sql: Sql,
    journalCapacity: number,
    /** Keys kept in memory, exact through the database's key version (organizationForKey). */
    private readonly keyCache: KeyCache = new KeyCache({ maxEntries: 0, maxAgeMs: 0 }),
  ) {
    this.organizations = withKeyWritesReported(organizationTable(sql), () => this.keysChanged());
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

  async transaction<T>(work: () => Promise<T>): Promise<T> {
    const keyWritesBefore = this.keyWrites;
    try {
      return await this.sql.transaction(work);
    } finally {
      // A lookup made inside the transaction after its write saw rows a rollback may have undone.
      if (this.keyWrites !== keyWritesBefore) this.keyCache.invalidate();
    }
  }

  /**
   * One query when the key is in memory: the keys' version, which every instance's key write
   * changes in its own transaction. A request that begins after a revocation committed, on any
   * instance, reads the new version and so looks the key up afresh: exact, where a notification
   * (LISTEN/NOTIFY) arrives on its own connection, possibly after the next request does.
   */
  async organizationForKey(key: string, hash = hashApiKey(key)): Promise<Organization | undefined> {
    const load = async () => {
      const row = await this.sql.row(
        'SELECT organization_id, key_hash FROM api_key_hashes WHERE key_hash = $1',
        [hash],
      );
      // The index finds the row; the bytes are still compared in constant time.
      if (!row || !sameKeyHash(row.key_hash as string, hash)) return undefined;
      return this.organizations.get(row.organization_id as string);
    };
    // A transaction sees its own uncommitted writes: it reads the tables, never the cache.
    if (this.sql.inTransaction()) return load();
    const [version] = await this.sql.column('SELECT token FROM api_key_version');
    this.keyCache.observe(version);
    return this.keyCache.lookup(hash, load);
  }

  async clear(): Promise<void> {
    await this.transaction(async () => {
      for (const table of EVERY_TABLE) await this.sql.rows(`DELETE FROM ${table}`);
      await this.keysChanged();
    });
  }

  close(): Promise<void> {
    return this.sql.close();
  }

  /** After a write that can change what a key maps to: forget here, and tell the others (on commit). */
  private async keysChanged(): Promise<void> {
    this.keyWrites++;
    this.keyCache.invalidate();
    await this.sql.rows('UPDATE api_key_version SET token = $1', [randomUUID()]);
  }
}
