/**
 * The request journal in PostgreSQL, written off the request path: entries wait in this instance's
 * memory and are written in batches, one transaction each (one multi-row INSERT, then a trim of
 * every organization the batch touched), every FLUSH_MS or BATCH_ENTRIES entries, whichever comes
 * first. A request's answer never waits for its entry; an instance killed mid-batch loses the
 * entries it had not written yet (at most FLUSH_MS of its requests), which a debugging aid can
 * afford and which spares every request a commit. A read of the journal writes this instance's
 * queued entries first, and waits out one batch interval of the other instances (FLUSH_MS and a
 * margin for their write), so a client that reads its journal right after a request finds it there
 * whichever instance answered it.
 *
 * Each organization keeps its newest `entriesPerOrganization` entries (and as many of requests
 * without one), so that one organization's traffic never evicts another's. A row is a run of one
 * organization's consecutive entries in a batch, stored whole as one JSON list (bodies may hold
 * any JSON string): a busy organization's batch is one row, not hundreds, which is most of what
 * the journal costs PostgreSQL per request.
 */
import { type JournalEntry, type JournalFilter, journalEntryMatches } from '../../domain/control-records.js';
import type { JournalTable } from '../../domain/state.js';
import { clientText } from '../tables/client-text.js';
import type { Sql } from './connection.js';

/** Longest an entry waits in memory before its batch is written. */
const FLUSH_MS = 100;
/** A batch this large is written at once, without waiting for the timer. */
const BATCH_ENTRIES = 500;
/** What a batch's write takes beyond its interval, on a database that is not overloaded. */
const WRITE_MARGIN_MS = 50;
/** Runs a read fetches at once: a run holds up to a batch of entries. */
const RUNS_PER_PAGE = 32;
/** The largest value of PostgreSQL's `integer`, the statuses column's type. */
const INT4_MAX = 2_147_483_647;
/** Runs one INSERT writes: five parameters each, under PostgreSQL's 65,535. */
const RUNS_PER_INSERT = 1000;
/** The journal's trim locks among the database's advisory locks (a key per organization; `'null'`
 * is no organization's, whose ids are stored as JSON strings, quoted). */
const TRIM_LOCKS = 7_470_301;

/** The batch being filled: one promise for all its entries, settled when it is written or lost. */
interface Batch {
  entries: JournalEntry[];
  settled: Promise<void>;
  written: () => void;
  lost: (error: unknown) => void;
}

export class BatchedJournal implements JournalTable {
  private filling = newBatch();
  private timer: NodeJS.Timeout | undefined;
  /** The batches written so far, one after the other so that entries keep their order. Never rejects. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly sql: Sql,
    private readonly entriesPerOrganization: number,
  ) {}

  /**
   * The entry's batch: one promise for all its entries, settled once the batch is written (or
   * dropped by a reset, forgetQueued), rejected when it is lost, with how many entries went with it.
   */
  record(entry: JournalEntry): Promise<void> {
    const batch = this.filling;
    batch.entries.push(entry);
    if (batch.entries.length >= BATCH_ENTRIES) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
    return batch.settled;
  }

  /** Writes what is queued now; settles once it (and every batch before it) is written or lost. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.filling;
    if (batch.entries.length > 0) {
      this.filling = newBatch();
      this.writing = this.writing.then(() => this.write(batch));
    }
    return this.writing;
  }

  /** Drops what is queued (a reset of the whole state): none of it is written after the reset. */
  async forgetQueued(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const dropped = this.filling;
    this.filling = newBatch();
    dropped.written();
    await this.writing;
  }

  async query(filter: JournalFilter): Promise<JournalEntry[]> {
    const othersWritten = new Promise((resolve) => setTimeout(resolve, FLUSH_MS + WRITE_MARGIN_MS));
    await Promise.all([this.flush(), othersWritten]);
    // Its pages under one snapshot: a trim committed between two of them would take entries out of
    // the older pages while the newer ones it added are not read.
    return this.sql.detached(() => this.sql.transaction(() => this.pages(filter), { oneSnapshot: true }));
  }

  private async pages(filter: JournalFilter): Promise<JournalEntry[]> {
    const limit = filter.limit ?? 100;
    // The statuses column holds 32-bit integers: a status past them matches no entry, as the
    // embedded journal answers, where PostgreSQL refused the query and the read answered 500.
    if (filter.status !== undefined && !(Math.abs(filter.status) <= INT4_MAX)) return [];
    const found: JournalEntry[] = [];
    let before: string | null = null;
    // Newest run first, a page at a time: the runs' lists of operations and statuses pass only runs
    // holding a match (not always in one entry), and each run's entries are then matched exactly.
    while (found.length < limit) {
      const page = Math.min(limit - found.length, RUNS_PER_PAGE);
      const runs = (await this.sql.rows(
        `SELECT seq, kept, entries FROM journal
         WHERE ($1::text IS NULL OR $1 = ANY(operation_ids)) AND ($2::integer IS NULL OR $2 = ANY(statuses))
           AND ($3::text IS NULL OR organization_id = $3) AND ($4::bigint IS NULL OR seq < $4)
         ORDER BY seq DESC LIMIT $5`,
        [
          filter.operationId === undefined ? null : clientText(filter.operationId),
          filter.status ?? null,
          filter.organizationId === undefined ? null : clientText(filter.organizationId),
          before,
          page,
        ],
      )) as Array<{ seq: string; kept: number; entries: string }>;
      for (const run of runs) {
        const entries = JSON.parse(run.entries) as JournalEntry[];
        for (const entry of entries.slice(entries.length - run.kept).reverse())
          if (found.length < limit && journalEntryMatches(entry, filter)) found.push(entry);
      }
      if (runs.length < page) break;
      before = runs[runs.length - 1].seq;
    }
    return found;
  }

  async clear(): Promise<void> {
    await this.forgetQueued();
    await this.sql.rows('DELETE FROM journal');
  }

  private async write(batch: Batch): Promise<void> {
    const runs = runsOf(batch.entries);
    try {
      // Detached: a batch is nobody's request, and must not join the transaction of the one that filled it.
      await this.sql.detached(() =>
        this.sql.transaction(async () => {
          for (let i = 0; i < runs.length; i += RUNS_PER_INSERT)
            await this.insert(runs.slice(i, i + RUNS_PER_INSERT));
          await this.trim([...new Set(runs.map((r) => r.organizationId))]);
        }),
      );
      batch.written();
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      batch.lost(
        new Error(`a batch of ${batch.entries.length} journal entries was lost: ${why}`, { cause: error }),
      );
    }
  }

  private async insert(runs: Run[]): Promise<void> {
    const rows = runs.map((_, i) => {
      const at = i * 5;
      return `($${at + 1}, $${at + 2}::text[], $${at + 3}::integer[], $${at + 4}::integer, $${at + 5})`;
    });
    await this.sql.rows(
      `INSERT INTO journal (organization_id, operation_ids, statuses, kept, entries) VALUES ${rows.join(', ')}`,
      runs.flatMap((run) => [
        run.organizationId,
        run.entries.map((e) => (e.operationId === null ? null : clientText(e.operationId))),
        run.entries.map((e) => e.status),
        run.entries.length,
        JSON.stringify(run.entries),
      ]),
    );
  }

  /**
   * Keeps each organization's newest entries: from its newest run back, the first run that reaches
   * the retention keeps only the entries within it, and the runs before it are deleted (through the
   * index by organization, reading the runs no further back than that one). One statement for the
   * organizations, one for the requests without one: a batch may hold hundreds of organizations.
   * Inside the batch's transaction, which holds the locks until it ends.
   */
  private async trim(organizations: Array<string | null>): Promise<void> {
    // One instance's trim of an organization at a time, each seeing the runs the one before it
    // committed (else both keep what they saw, and the organization more than its number), the
    // locks taken in one order on every instance (else two batches deadlock, and one is lost).
    await this.sql.rows(
      `SELECT pg_advisory_xact_lock(${TRIM_LOCKS}, key) FROM (
         SELECT DISTINCT hashtext(coalesce(id, 'null')) AS key FROM unnest($1::text[]) AS id ORDER BY key
       ) AS keys`,
      [organizations],
    );
    const ids = organizations.filter((id) => id !== null);
    if (ids.length > 0)
      await this.sql.rows(
        trimming('unnest($2::text[])', (id) => `organization_id = ${id}`),
        [this.entriesPerOrganization, ids],
      );
    if (ids.length < organizations.length)
      await this.sql.rows(
        trimming('(VALUES (NULL::text))', () => 'organization_id IS NULL'),
        [this.entriesPerOrganization],
      );
  }
}

/** The trim of each organization `ids` lists, `ofOrganization(id)` picking a run of it. */
function trimming(ids: string, ofOrganization: (id: string) => string): string {
  return `WITH boundary AS (
       SELECT o.id, b.seq, b.newer FROM ${ids} AS o(id) CROSS JOIN LATERAL (
         SELECT seq, newer FROM (
           SELECT seq, kept, sum(kept) OVER (ORDER BY seq DESC ROWS UNBOUNDED PRECEDING) - kept AS newer
           FROM journal WHERE ${ofOrganization('o.id')} ORDER BY seq DESC
         ) runs WHERE newer + kept >= $1 LIMIT 1
       ) b
     ), older AS (
       DELETE FROM journal j USING boundary b WHERE j.${ofOrganization('b.id')} AND j.seq < b.seq
     )
     UPDATE journal j SET kept = $1 - b.newer FROM boundary b WHERE j.seq = b.seq AND j.kept > $1 - b.newer`;
}

/** One organization's consecutive entries in a batch (its id as client text), in their order. */
interface Run {
  organizationId: string | null;
  entries: JournalEntry[];
}

function runsOf(entries: JournalEntry[]): Run[] {
  const runs: Run[] = [];
  for (const entry of entries) {
    const organizationId = entry.organizationId === null ? null : clientText(entry.organizationId);
    const last = runs.at(-1);
    if (last?.organizationId === organizationId) last.entries.push(entry);
    else runs.push({ organizationId, entries: [entry] });
  }
  return runs;
}

function newBatch(): Batch {
  let written!: () => void;
  let lost!: (error: unknown) => void;
  const settled = new Promise<void>((resolve, reject) => ((written = resolve), (lost = reject)));
  // A batch nobody awaits (every entry's caller let go of it) must not end the process when lost.
  settled.catch(() => {});
  return { entries: [], settled, written, lost };
}
