/**
 * The mock's state in PostgreSQL, for several instances sharing one database: the `StateStore`
 * port of domain/state.ts. The tables are the ones both engines share (stores/tables/), their
 * statements awaited on the pool (answer.ts), and those only PostgreSQL keeps (shared-tables.ts).
 * Reads return fresh objects; a call joins the caller's transaction (connection.ts).
 */
import { randomUUID } from 'node:crypto';
import { hashApiKey } from '../../domain/api-keys.js';
import type { KeyCache } from '../../domain/key-cache.js';
import type { Organization } from '../../domain/organization-record.js';
import type { RequestReads, StateStore } from '../../domain/state.js';
import { POSTGRES } from '../tables/dialect.js';
import { organizationOfKeyHash } from '../tables/organization-tables.js';
import { STATE_TABLES, stateTables, TableHolder } from '../tables/state-tables.js';
import { perform } from './answer.js';
import type { Sql } from './connection.js';
import { BatchedJournal } from './journal-batches.js';
import { memoryRateWindows } from '../memory/rate-windows.js';
import { SharedReads } from './request-reads.js';
import { SnapshotMemo } from './snapshot-memo.js';
import { replaceLock } from './replace-lock.js';
import { changingControl, controlChanged, counterTable, faultTable } from './shared-tables.js';

/** Children before the rows they reference; then the tables only PostgreSQL keeps. */
const EVERY_TABLE = [...STATE_TABLES, 'counters', 'faults', 'journal'];

export class PostgresStateStore extends TableHolder implements StateStore {
  /** Counts writes that changed a key's organization: a transaction that saw one invalidates again when it ends. */
  private keyWrites = 0;
  private readonly batchedJournal: BatchedJournal;
  private readonly sharedReads: SharedReads;
  /** Held across every instance of the database (replace-lock.ts). */
  readonly replacing: StateStore['replacing'];

  constructor(
    private readonly sql: Sql,
    journalEntriesPerOrganization: number,
    /** Keys kept in memory, exact through the database's key version (organizationForKey). */
    private readonly keyCache: KeyCache,
  ) {
    super();
    this.replacing = replaceLock(sql);
    this.serveTables(stateTables(POSTGRES, perform(sql, new SnapshotMemo(sql))), () => this.keysChanged());
    this.counters = counterTable(sql);
    // In this instance's memory: a rate is decided without a write (domain/abuse-limits.ts).
    this.rates = memoryRateWindows();
    this.faults = faultTable(sql);
    // A clock moved changes the control plane's version in its own transaction (request-reads.ts).
    const { set } = this.clockOffsets;
    this.clockOffsets.set = (organizationId, offsetMs) =>
      changingControl(sql, () => set(organizationId, offsetMs));
    this.clockOffsets.lock = async (organizationId) => {
      await sql.rows('SELECT pg_advisory_xact_lock(hashtext($1))', [`clock_offsets/${organizationId}`]);
    };
    this.journal = this.batchedJournal = new BatchedJournal(sql, journalEntriesPerOrganization);
    this.sharedReads = new SharedReads({
      sql,
      keyCache,
      organizationOfKey: (hash) => perform(sql)(organizationOfKeyHash(hash)),
      clockOffsets: this.clockOffsets,
      faults: this.faults,
    });
  }

  /** The connection pool's waits, for the instance's metrics. */
  poolUse(): { waiting: number; waits: number } {
    return this.sql.poolUse();
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

  /** REPEATABLE READ READ ONLY: one snapshot, and a read-only transaction fails on no conflict. */
  readAtOnce<T>(work: () => Promise<T>): Promise<T> {
    return this.sql.transaction(work, { oneSnapshot: true });
  }

  /** Through a view of its own (request-reads.ts): one query when the key is in memory. */
  organizationForKey(key: string, hash = hashApiKey(key)): Promise<Organization | undefined> {
    return this.requestReads().organizationForKey(key, hash);
  }

  requestReads(): RequestReads {
    return this.sharedReads.view();
  }

  async clear(): Promise<void> {
    await this.batchedJournal.forgetQueued();
    await this.transaction(async () => {
      for (const table of EVERY_TABLE) await this.sql.rows(`DELETE FROM ${table}`);
      await this.keysChanged();
      await controlChanged(this.sql);
    });
  }

  /** Writes the journal's queued entries first: an instance stopped gracefully loses none. */
  async close(): Promise<void> {
    await this.batchedJournal.flush();
    await this.sql.close();
  }

  /** After a write that can change what a key maps to: forget here, and tell the others (on commit). */
  private async keysChanged(): Promise<void> {
    this.keyWrites++;
    this.keyCache.invalidate();
    await this.sql.rows('UPDATE api_key_version SET token = $1', [randomUUID()]);
  }
}
