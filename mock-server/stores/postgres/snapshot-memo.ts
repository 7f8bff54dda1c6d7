/**
 * The table layer's reads answered from this instance's memory while the database has not changed,
 * so that a request's reads cost its one round trip for the versions (request-reads.ts) and no more.
 *
 * Exact across instances. Each request reads the database's snapshot (`pg_current_snapshot()`)
 * together with the versions, after it began. The text of a snapshot changes whenever a write
 * transaction anywhere in the cluster commits or aborts: one that was running is no longer in its
 * list of running transactions, and one that began later moves its upper bound. So two requests
 * that saw the same text saw a database in which nothing changed in between, and a record read
 * under that text, at any moment after one of them saw it, is what the other would read too. A
 * request whose text differs, older or newer, reads the database itself.
 *
 * This instance's own writes are caught without the snapshot: a request that writes and then reads
 * still holds the text it saw before its write. Every write statement and every transaction moves
 * the connection's write epoch (connection.ts) when it begins and when it ends; what was kept
 * under another epoch is dropped, and a read that a write overtook is not kept.
 *
 * Requests that saw one snapshot, under one write epoch, and make the same read while it is on its
 * way share it instead of each sending its own: whichever of them sent it, it was sent after that one
 * saw the snapshot, so by the same reasoning its answer is what each of the others would read. After
 * a write anywhere changes the snapshot, the requests that meet the emptied memo together (a whole
 * group of reads, request-reads.ts) then cost one statement instead of one each.
 *
 * Reads inside a transaction, and work that serves no request (the job worker, the sweeps), always
 * ask the database. Only records are kept (the `map` of a read), handed out as copies (read-memo.ts).
 */
import { copyPlain, memoKey, ReadMemo } from '../tables/read-memo.js';
import type { Row } from '../tables/work.js';
import type { Sql } from './connection.js';

/** A plain read: a write (UPDATE ... RETURNING) or a row lock is never answered from memory. */
const PLAIN_READ = /^\s*SELECT\b(?![\s\S]*\bFOR\s+(UPDATE|SHARE|NO\s+KEY|KEY))/i;

export class SnapshotMemo {
  private readonly memo = new ReadMemo();
  /** Reads on their way, by write epoch, snapshot and statement with its arguments. */
  private readonly onTheirWay = new Map<string, Promise<Row[]>>();
  /** Whether each statement text is a plain read, tested once per text (the texts are the code's own). */
  private readonly plainReads = new Map<string, boolean>();
  /** The snapshot and the write epoch what is kept was read under, and when that snapshot was read. */
  private snapshot?: string;
  private sentAt = 0;
  private epoch = -1;

  constructor(private readonly sql: Sql) {}

  /** `map` of every row `read` answers for `text` with `args`, from memory where that is exact. */
  async records<T>(
    text: string,
    args: readonly unknown[],
    read: () => Promise<Row[]>,
    map: (row: Row) => T,
  ): Promise<T[]> {
    const scope = this.sql.requestScope();
    if (scope?.snapshot === undefined || scope.sentAt === undefined || !this.plainRead(text)) {
      return (await read()).map(map);
    }
    const epoch = this.sql.writeEpoch;
    if (epoch !== this.epoch || (scope.snapshot !== this.snapshot && scope.sentAt > this.sentAt)) {
      // Either this instance wrote, or a newer snapshot came: what is kept may be stale now.
      this.memo.written();
      this.snapshot = scope.snapshot;
      this.sentAt = scope.sentAt;
      this.epoch = epoch;
    }
    const current = scope.snapshot === this.snapshot;
    if (current) {
      const kept = this.memo.find(text, args, map);
      if (kept !== undefined) return kept;
    }
    const fresh = (await this.shared(`${epoch}\u0001${scope.snapshot}`, text, args, read)).map(map);
    // Kept only if no write of this instance overtook the read, and the memo still holds that snapshot.
    if (current && this.sql.writeEpoch === epoch && this.snapshot === scope.snapshot) {
      if (this.memo.keep(text, args, map, fresh)) return fresh.map(copyPlain);
    }
    return fresh;
  }

  /** The rows of the read on its way under `under` for `text` with `args`, or of one sent now. */
  private async shared(under: string, text: string, args: readonly unknown[], read: () => Promise<Row[]>) {
    const key = memoKey(text, args);
    if (key === undefined) return read();
    const flight = `${under}\u0001${key}`;
    const onItsWay = this.onTheirWay.get(flight);
    // A sharer's rows are its own: its records may be handed on and changed (one level, as kept ones).
    if (onItsWay) return (await onItsWay).map(copyPlain);
    const sent = read();
    this.onTheirWay.set(flight, sent);
    const arrived = () => this.onTheirWay.delete(flight);
    sent.then(arrived, arrived);
    return sent;
  }

  private plainRead(text: string): boolean {
    let plain = this.plainReads.get(text);
    if (plain === undefined) this.plainReads.set(text, (plain = PLAIN_READ.test(text)));
    return plain;
  }
}
