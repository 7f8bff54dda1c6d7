/**
 * The mock's state in SQLite (Node's built-in node:sqlite): the `StateStore` port of domain/state.ts. Tables and
 * indexes are in database/migrations.ts; every per-organization read and every lookup by id or
 * token goes through an index, so it costs the same however many other records there are.
 *
 * Reads return fresh objects; writes are statements in the caller's transaction. The tables are
 * synchronous underneath; transaction-gate.ts serves them through the asynchronous port. A
 * transaction turns "disk full" into the domain's `storage_full`, after which the database is as
 * it was before the transaction began.
 */
import { hashApiKey, sameKeyHash } from '../../domain/api-keys.js';
import { KeyCache, type KeyCacheLimits, withKeyWritesReported } from '../../domain/key-cache.js';
import { storageFull } from '../../domain/errors.js';
import type { ModelRecord } from '../../domain/models/model-record.js';
import type { Organization, Plan } from '../../domain/organizations.js';
import type { ApiKeyRecord } from '../../domain/api-keys.js';
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
import type { Database } from './database/node-sqlite.js';
import { sqliteResultName } from './database/node-sqlite.js';
import {
  clientText,
  fromClientText,
  type Row,
  statementCache,
  type Statements,
} from './database/statements.js';
import { ReadMemo } from './database/read-memo.js';
import { memoryCounters } from '../memory/counters.js';
import { memoryRateWindows } from '../memory/rate-windows.js';
import { memoryFaults } from '../memory/fault-list.js';
import { memoryJournal } from '../memory/journal-ring.js';
import { jobTable } from './job-table.js';
import { type Synchronous, TransactionGate } from './transaction-gate.js';
import { imageTable, predictionTable, segmentationTable, shareTable } from './work-tables.js';

export class SqliteStateStore implements StateStore {
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
  private readonly gate: TransactionGate;
  private readonly organizationRows: Synchronous<OrganizationTable>;
  private readonly statements: Statements;
  /** Answers of reads kept until the next write: this process is the database's only writer. */
  private readonly memo = new ReadMemo();
  /** One process owns a SQLite folder: every write that changes a key's organization passes through this store. */
  private readonly keyCache: KeyCache;
  /** Counts writes that changed a key's organization: a transaction that saw one invalidates again when it ends. */
  private keyWrites = 0;
  private keyWritesAtBegin = 0;

  constructor(
    private readonly db: Database,
    options: { journalCapacity?: number; keyCache?: KeyCacheLimits } = {},
  ) {
    const statements = (this.statements = statementCache(db, this.memo));
    this.keyCache = new KeyCache(options.keyCache);
    this.organizationRows = organizationTable(statements);
    const gate = (this.gate = new TransactionGate(db, (err) => (isDiskFull(err) ? storageFull() : err), {
      begun: () => (this.keyWritesAtBegin = this.keyWrites),
      ended: (committed) => {
        // Rolled back: a read inside the transaction may have kept rows that are gone now.
        if (!committed) this.memo.written();
        // A lookup made inside the transaction after its write saw rows a rollback may have undone.
        if (this.keyWrites !== this.keyWritesAtBegin) this.keyCache.invalidate();
      },
    }));
    this.organizations = withKeyWritesReported(gate.tables(this.organizationRows), () => this.keysChanged());
    this.usage = gate.tables(usageTable(statements));
    this.models = gate.tables(modelTable(statements));
    this.images = gate.tables(imageTable(statements));
    this.predictions = gate.tables(predictionTable(statements));
    this.segmentations = gate.tables(segmentationTable(statements));
    this.shares = gate.tables(shareTable(statements));
    this.settings = gate.tables(settingsTable(statements));
    this.jobs = gate.tables(jobTable(statements));
    // One process owns a SQLite folder, so what the control plane keeps between requests lives in
    // that process's memory, as it always has: the shared engine (stores/postgres/) keeps it in tables.
    this.counters = memoryCounters();
    this.rates = memoryRateWindows();
    this.faults = memoryFaults();
    this.journal = memoryJournal(options.journalCapacity);
  }

  transaction<T>(work: () => Promise<T>): Promise<T> {
    return this.gate.transaction(work);
  }

  organizationForKey(key: string, hash = hashApiKey(key)): Promise<Organization | undefined> {
    return this.keyCache.lookup(hash, () =>
      this.gate.run(() => {
        const row = this.statements.row(
          'SELECT organization_id, key_hash FROM api_key_hashes WHERE key_hash = ?',
          hash,
        ) as { organization_id: string; key_hash: string } | undefined;
        // The index finds the row; the bytes are still compared in constant time.
        if (!row || !sameKeyHash(row.key_hash, hash)) return undefined;
        return this.organizationRows.get(row.organization_id);
      }),
    );
  }

  private keysChanged(): void {
    this.keyWrites++;
    this.keyCache.invalidate();
  }

  async clear(): Promise<void> {
    await this.transaction(async () => {
      for (const table of [
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
      ])
        this.db.prepare(`DELETE FROM ${table}`).run();
      this.memo.written();
      this.keysChanged();
    });
    await this.counters.clear();
    await this.faults.clear();
    await this.journal.clear();
  }

  async close(): Promise<void> {
    await this.gate.closed();
    this.db.close();
  }
}

/** SQLITE_FULL from the database, ENOSPC from a file written inside the transaction. */
export function isDiskFull(err: unknown): boolean {
  const code = sqliteResultName(err) ?? (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'SQLITE_IOERR_WRITE';
}

function organizationTable(db: Statements): Synchronous<OrganizationTable> {
  const keysOf = (orgId: unknown): ApiKeyRecord[] =>
    (
      db
        .prepare('SELECT id, prefix, key_hash FROM api_key_hashes WHERE organization_id = ? ORDER BY seq')
        .all(orgId as string) as Row[]
    ).map((r) => ({ id: r.id as string, prefix: r.prefix as string, hash: r.key_hash as string }));
  const toOrganization = (r: Row): Organization => ({
    id: r.id as string,
    name: fromClientText(r.name),
    plan: {
      name: r.plan_name as string,
      storageCapImages: r.storage_cap_images as number,
      monthlyAnalysisCap: r.monthly_analysis_cap as number,
    },
    apiKeys: keysOf(r.id),
  });
  const nextSeq = (table: string) => db.column<number>(`SELECT coalesce(max(seq), 0) + 1 FROM ${table}`)[0];
  const insertKeyRow = db.prepare(
    'INSERT INTO api_key_hashes (id, key_hash, prefix, organization_id, seq) VALUES (?, ?, ?, ?, ?)',
  );
  const insertKey = (orgId: string, key: ApiKeyRecord) =>
    insertKeyRow.run(key.id, key.hash, key.prefix, orgId, nextSeq('api_key_hashes'));
  return {
    lock() {
      // BEGIN IMMEDIATE has already made this transaction the only writer of the database.
    },
    get(id) {
      const row = db.row('SELECT * FROM organizations WHERE id = ?', id);
      return row && toOrganization(row);
    },
    all() {
      return (db.prepare('SELECT * FROM organizations ORDER BY seq').all() as Row[]).map(toOrganization);
    },
    insert(org) {
      db.prepare(
        `INSERT INTO organizations (id, name, plan_name, storage_cap_images, monthly_analysis_cap, seq)
         VALUES (?, ?, ?, ?, ?, ?)`,
      ).run(
        org.id,
        clientText(org.name),
        org.plan.name,
        org.plan.storageCapImages,
        org.plan.monthlyAnalysisCap,
        nextSeq('organizations'),
      );
      for (const key of org.apiKeys) insertKey(org.id, key);
    },
    setPlan(id: string, plan: Plan) {
      db.prepare(
        'UPDATE organizations SET plan_name = ?, storage_cap_images = ?, monthly_analysis_cap = ? WHERE id = ?',
      ).run(plan.name, plan.storageCapImages, plan.monthlyAnalysisCap, id);
    },
    addKey(id, key) {
      insertKey(id, key);
    },
    removeKey(id, keyId) {
      return (
        db.prepare('DELETE FROM api_key_hashes WHERE organization_id = ? AND id = ?').run(id, keyId).changes >
        0
      );
    },
    keyTaken(hash) {
      return db.prepare('SELECT 1 FROM api_key_hashes WHERE key_hash = ?').get(hash) !== undefined;
    },
  };
}

function usageTable(db: Statements): Synchronous<UsageTable> {
  return {
    analyses(orgId, month) {
      const [count] = db.column<number>(
        'SELECT count FROM analysis_usage WHERE organization_id = ? AND month = ?',
        orgId,
        month,
      );
      return count ?? 0;
    },
    setAnalyses(orgId, month, count) {
      db.prepare(
        `INSERT INTO analysis_usage (organization_id, month, count) VALUES (?, ?, ?)
         ON CONFLICT (organization_id, month) DO UPDATE SET count = excluded.count`,
      ).run(orgId, month, count);
    },
    clear(orgId) {
      db.prepare('DELETE FROM analysis_usage WHERE organization_id = ?').run(orgId);
    },
    monthsOf(orgId) {
      return db
        .prepare('SELECT month, count FROM analysis_usage WHERE organization_id = ? ORDER BY month')
        .all(orgId) as Array<{ month: string; count: number }>;
    },
  };
}

function modelTable(db: Statements): Synchronous<ModelTable> {
  const toModel = (r: Row): ModelRecord => ({
    id: r.id as string,
    name: fromClientText(r.name),
    version: fromClientText(r.version),
    description: fromClientText(r.description),
    scope: r.scope as ModelRecord['scope'],
    ...(r.organization_id === null ? {} : { organizationId: r.organization_id as string }),
    engine: JSON.parse(r.engine as string) as ModelRecord['engine'],
  });
  return {
    add(model) {
      db.prepare(
        `INSERT INTO models (id, organization_id, scope, name, version, description, engine)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        model.id,
        model.organizationId ?? null,
        model.scope,
        clientText(model.name),
        clientText(model.version),
        clientText(model.description),
        JSON.stringify(model.engine),
      );
    },
    get(id) {
      return db.records('SELECT * FROM models WHERE id = ?', toModel, id)[0];
    },
    listFor(org) {
      // Base models first, then by name in code-point order: the same on every machine whatever its
      // locale, and no ICU collator to build on a first request (15 ms of a cold start).
      return db.records(
        "SELECT * FROM models WHERE scope = 'base' OR organization_id = ? ORDER BY scope <> 'base', name, id",
        toModel,
        org.id,
      );
    },
    all() {
      return (db.prepare('SELECT * FROM models ORDER BY id').all() as Row[]).map(toModel);
    },
  };
}

function settingsTable(db: Statements): Synchronous<SettingsTable> {
  return {
    get(key) {
      return db.column('SELECT value FROM settings WHERE key = ?', key)[0];
    },
    set(key, value) {
      db.prepare(
        'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      ).run(key, value);
    },
    delete(key) {
      db.prepare('DELETE FROM settings WHERE key = ?').run(key);
    },
    withPrefix(prefix) {
      return db
        .prepare('SELECT key, value FROM settings WHERE substr(key, 1, length(?)) = ? ORDER BY key')
        .all(prefix, prefix) as Array<{ key: string; value: string }>;
    },
    deleteWithPrefix(prefix) {
      db.prepare('DELETE FROM settings WHERE substr(key, 1, length(?)) = ?').run(prefix, prefix);
    },
  };
}
