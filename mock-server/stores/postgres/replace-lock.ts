/**
 * The replacements of the whole state (a snapshot's swap, a reset's reseed) run one at a time
 * across every instance of the database: each holds a session-level advisory lock, on a connection
 * of its own kept for the whole replacement (its transactions run on the pool). An instance killed
 * mid-way loses its session, and the lock with it, so nothing is left to wedge the others. Within
 * one instance they queue first, so an instance holds or waits on one such connection at most; the
 * queue's wait is bounded by the statement timeout as the lock's is.
 */
import { DomainError } from '../../domain/errors.js';
import { oneAtATime, type OneAtATime } from '../memory/one-at-a-time.js';
import type { Sql } from './connection.js';
import { asDomainFailure } from './failures.js';

/** Any fixed number: it names the replacement's lock among the database's advisory locks. */
const REPLACE_LOCK = 0x73776170; // "swap"

/** The statement timeout bounds the wait for another instance's replacement, as any lock wait. */
export function replaceLock(sql: Sql): OneAtATime {
  const waitedTooLong = (who: string) =>
    new DomainError(
      'store_unavailable',
      `${who} has been replacing the whole state (a snapshot load or a reset) for longer than --database-timeout-ms (${sql.statementTimeoutMs} ms); try again shortly.`,
      1,
    );
  const queue = oneAtATime({ ms: sql.statementTimeoutMs, tooLong: () => waitedTooLong('This instance') });
  return (work) =>
    queue(async () => {
      const session = await sql.session();
      // A session lost while the work runs (terminated, its network gone) no longer holds the lock:
      // another instance may replace the state alongside, so the work cannot be answered as done.
      let lost = false;
      const onLost = () => (lost = true);
      session.on('error', onLost).on('end', onLost);
      try {
        await session.query(`SELECT pg_advisory_lock(${REPLACE_LOCK})`).catch((error: unknown) => {
          throw (error as { code?: unknown }).code === '57014'
            ? waitedTooLong('Another instance')
            : asDomainFailure(error);
        });
        const result = await work();
        if (lost)
          throw new DomainError(
            'store_unavailable',
            "The database connection holding the lock on replacing the whole state was lost while it ran: another instance's load or reset may have run alongside. Load or reset again.",
            1,
          );
        return result;
      } finally {
        session.off('end', onLost);
        // Ending the session releases its lock.
        await session.end().catch(() => undefined);
      }
    });
}
