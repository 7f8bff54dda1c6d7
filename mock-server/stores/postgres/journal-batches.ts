/**
 * The request journal in PostgreSQL, written off the request path: entries wait in this instance's
 * memory and are written in batches, one transaction each (one multi-row INSERT, then a trim of
 * every organization the batch touched), every `flushMs` or `batchEntries` entries, whichever comes
 * first. A request's answer never waits for its entry; an instance killed mid-batch loses the
 * entries it had not written yet (at most `flushMs` of its requests), which a debugging aid can
 * afford and which spares every request a commit. A read of the journal writes this instance's
 * queued entries first, and waits out one batch interval of the other instances (`flushMs` and a
 * margin for their write), so a client that reads its journal right after a request finds it there
 * whichever instance answered it.
 *
 * Each organization keeps its newest `entriesPerOrganization` entries (and as many of requests
 * without one), so that one organization's traffic never evicts another's; each entry is stored
 * whole as JSON text (bodies may hold any JSON string).
 */
import type { JournalEntry } from '../../domain/control-records.js';
import type { JournalTable } from '../../domain/state.js';
import { clientText } from '../tables/client-text.js';
import type { Sql } from './connection.js';

export interface JournalBatching {
  /** Longest an entry waits in memory before its batch is written. */
  flushMs: number;
  /** A batch this large is written at once, without waiting for the timer. */
  batchEntries: number;
}

export const DEFAULT_JOURNAL_BATCHING: JournalBatching = { flushMs: 100, batchEntries: 500 };

/** What a batch's write takes beyond its interval, on a database that is not overloaded. */
const WRITE_MARGIN_MS = 50;

interface Queued {
  entry: JournalEntry;
  written: () => void;
  lost: (error: unknown) => void;
}

export class BatchedJournal implements JournalTable {
  private queue: Queued[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The batches written so far, one after the other so that entries keep their order. Never rejects. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly sql: Sql,
    private readonly entriesPerOrganization: number,
    private readonly batching: JournalBatching = DEFAULT_JOURNAL_BATCHING,
  ) {}

  /** Settles once the entry's batch is written (or failed: then it is lost, and the promise says why). */
  record(entry: JournalEntry): Promise<void> {
    return new Promise((written, lost) => {
      this.queue.push({ entry, written, lost });
      if (this.queue.length >= this.batching.batchEntries) void this.flush();
      else this.timer ??= setTimeout(() => void this.flush(), this.batching.flushMs).unref();
    });
  }

  /** Writes what is queued now; settles once it (and every batch before it) is written or lost. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.queue;
    this.queue = [];
    if (batch.length > 0) this.writing = this.writing.then(() => this.write(batch));
    return this.writing;
  }

  /** Drops what is queued (a reset of the whole state): none of it is written after the reset. */
  async forgetQueued(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const dropped = this.queue;
    this.queue = [];
    for (const queued of dropped) queued.written();
    await this.writing;
  }

  async query(filter: Parameters<JournalTable['query']>[0]): Promise<JournalEntry[]> {
    const othersWritten = new Promise((resolve) =>
      setTimeout(resolve, this.batching.flushMs + WRITE_MARGIN_MS),
    );
    await Promise.all([this.flush(), othersWritten]);
    const rows = await this.sql.column(
      `SELECT entry FROM journal
       WHERE ($1::text IS NULL OR operation_id = $1) AND ($2::integer IS NULL OR status = $2)
         AND ($3::text IS NULL OR organization_id = $3)
       ORDER BY seq DESC LIMIT $4`,
      [
        filter.operationId === undefined ? null : clientText(filter.operationId),
        filter.status ?? null,
        filter.organizationId === undefined ? null : clientText(filter.organizationId),
        filter.limit ?? 100,
      ],
    );
    return rows.map((text) => JSON.parse(text) as JournalEntry);
  }

  async clear(): Promise<void> {
    await this.forgetQueued();
    await this.sql.rows('DELETE FROM journal');
  }

  private async write(batch: Queued[]): Promise<void> {
    const entries = batch.map((q) => q.entry);
    const organizations = entries.map((e) =>
      e.organizationId === null ? null : clientText(e.organizationId),
    );
    try {
      // Detached: a batch is nobody's request, and must not join the transaction of the one that filled it.
      await this.sql.detached(() =>
        this.sql.transaction(async () => {
          await this.sql.rows(
            `INSERT INTO journal (operation_id, organization_id, status, entry)
             SELECT operation_id, organization_id, status, entry
             FROM unnest($1::text[], $2::text[], $3::integer[], $4::text[])
               WITH ORDINALITY AS batch(operation_id, organization_id, status, entry, n)
             ORDER BY n`,
            [
              entries.map((e) => (e.operationId === null ? null : clientText(e.operationId))),
              organizations,
              entries.map((e) => e.status),
              entries.map((e) => JSON.stringify(e)),
            ],
          );
          for (const organizationId of new Set(organizations)) await this.trim(organizationId);
        }),
      );
      for (const queued of batch) queued.written();
    } catch (error) {
      for (const queued of batch) queued.lost(error);
    }
  }

  /**
   * Deletes what is older than the organization's newest entries (by sequence number, on the index
   * by organization; a rolled-back insert leaves a gap, so at times a few less are kept).
   */
  private async trim(organizationId: string | null): Promise<void> {
    const ofOrganization = organizationId === null ? 'organization_id IS NULL' : 'organization_id = $2';
    await this.sql.rows(
      `DELETE FROM journal WHERE ${ofOrganization} AND seq <= (
         SELECT seq FROM journal WHERE ${ofOrganization} ORDER BY seq DESC OFFSET $1 LIMIT 1
       )`,
      organizationId === null ? [this.entriesPerOrganization] : [this.entriesPerOrganization, organizationId],
    );
  }
}
