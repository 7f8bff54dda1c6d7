/**
 * The mock's state in SQLite (Node's built-in node:sqlite): the `StateStore` port of domain/state.ts.
 * The tables are the ones both engines share (stores/tables/); every per-organization read and
 * every lookup by id or token goes through an index, so it costs the same however many other
 * records there are.
 *
 * Reads return fresh objects; writes are statements in the caller's transaction. Each table
 * method's statements run at once (database/statements.ts) behind transaction-gate.ts, which serves
 * them through the asynchronous port. A transaction turns "disk full" into the domain's
 * `storage_full`, after which the database is as it was before the transaction began.
 */
import { hashApiKey } from '../../domain/api-keys.js';
import { KeyCache, type KeyCacheLimits } from '../../domain/key-cache.js';
import { storageFull } from '../../domain/errors.js';
import type { Organization } from '../../domain/organization-record.js';
import type { RequestReads, StateStore } from '../../domain/state.js';
import { SQLITE } from '../tables/dialect.js';
import { organizationOfKeyHash } from '../tables/organization-tables.js';
import { STATE_TABLES, stateTables, TableHolder } from '../tables/state-tables.js';
import { script, type Work } from '../tables/work.js';
import type { Database } from './database/node-sqlite.js';
import { sqliteResultName } from './database/node-sqlite.js';
import { performNow } from './database/statements.js';
import { ReadMemo } from '../tables/read-memo.js';
import { memoryCounters } from '../memory/counters.js';
import { memoryRateWindows } from '../memory/rate-windows.js';
import { memoryFaults } from '../memory/fault-list.js';
import { memoryJournal } from '../memory/journal-ring.js';
import { oneAtATime } from '../memory/one-at-a-time.js';
import { TransactionGate } from './transaction-gate.js';

export class SqliteStateStore extends TableHolder implements StateStore {
  private readonly gate: TransactionGate;
  /** Runs a table method's statements at once, behind the gate. */
  private readonly perform: <T>(work: Work<T>) => Promise<T>;
  /** One process owns a SQLite folder: its replacements of the state wait for each other in its memory. */
  readonly replacing = oneAtATime();
  /** Answers of reads kept until the next write: this process is the database's only writer. */
  private readonly memo = new ReadMemo();
  /** One process owns a SQLite folder: every write that changes a key's organization passes through this store. */
  private readonly keyCache: KeyCache;
  /** Counts writes that changed a key's organization: a transaction that saw one invalidates again when it ends. */
  private keyWrites = 0;
  private keyWritesAtBegin = 0;

  constructor(
    private readonly db: Database,
    options: { journalEntriesPerOrganization?: number; keyCache?: KeyCacheLimits } = {},
  ) {
    super();
    this.keyCache = new KeyCache(options.keyCache);
    const gate = (this.gate = new TransactionGate(db, (err) => (isDiskFull(err) ? storageFull() : err), {
      begun: () => (this.keyWritesAtBegin = this.keyWrites),
      ended: (committed) => {
        // Rolled back: a read inside the transaction may have kept rows that are gone now.
        if (!committed) this.memo.written();
        // A lookup made inside the transaction after its write saw rows a rollback may have undone.
        if (this.keyWrites !== this.keyWritesAtBegin) this.keyCache.invalidate();
      },
    }));
    const now = performNow(db, this.memo);
    this.perform = (work) => gate.run(() => now(work));
    this.serveTables(stateTables(SQLITE, this.perform), () => this.keysChanged());
    // One process owns a SQLite folder, so what the control plane keeps between requests lives in
    // that process's memory, as it always has: the shared engine (stores/postgres/) keeps it in tables.
    this.counters = memoryCounters();
    this.rates = memoryRateWindows();
    this.faults = memoryFaults();
    this.journal = memoryJournal(options.journalEntriesPerOrganization);
  }

  /** The tables themselves: this process is the only writer, and its reads are memoized until a write. */
  requestReads(): RequestReads {
    return this;
  }

  /** Nothing to scope: this process is the database's only writer, and its read memo is exact anyway. */
  within<T>(work: () => Promise<T>): Promise<T> {
    return work();
  }

  transaction<T>(work: () => Promise<T>): Promise<T> {
    return this.gate.transaction(work);
  }

  /** Every transaction is the only one running: its reads see one state already. */
  readAtOnce<T>(work: () => Promise<T>): Promise<T> {
    return this.transaction(work);
  }

  organizationForKey(key: string, hash = hashApiKey(key)): Promise<Organization | undefined> {
    return this.keyCache.lookup(hash, () => this.perform(organizationOfKeyHash(hash)));
  }

  private keysChanged(): void {
    this.keyWrites++;
    this.keyCache.invalidate();
  }

  async clear(): Promise<void> {
    await this.transaction(async () => {
      await this.perform(script(STATE_TABLES.map((table) => `DELETE FROM ${table}`).join('; ')));
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
