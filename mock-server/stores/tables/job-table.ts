/**
 * Durable jobs, written once for both engines (the StateStore port's JobTable, domain/state.ts):
 * one row per (kind, subject), held by a worker until its lease runs out. Leases are epoch
 * milliseconds on the engine's clock (dialect.ts nowMs: PostgreSQL's, the same for every instance
 * whatever its own clock says; SQLite's, the machine's).
 *
 * A claim is one statement: it takes the oldest free job, skipping a row another claim holds
 * (PostgreSQL's SKIP LOCKED; SQLite has one writer at a time), and re-reads it under its lock before
 * taking it, so a lease renewed meanwhile is not stolen. A lease that ran out is back in the queue,
 * but its holder may still renew it (its renewals failed while the database did not answer) as long
 * as no claim took the job since its own (its claim count unchanged); renew and finish answer false
 * to a worker whose job another claimed, and it publishes nothing.
 * A job put off (retryLater) stays with its holder until its lease runs out, unrenewed.
 */
import type { JobKind, JobTable } from '../../domain/state.js';
import type { Dialect } from './dialect.js';
import { column, first, marks, type Row, run, type Works } from './work.js';

const toLease = (r: Row) => ({
  kind: r.kind as JobKind,
  subjectId: r.subject_id as string,
  attempts: r.attempts as number,
});

export function jobTable(d: Dialect): Works<JobTable> {
  const now = d.nowMs;
  return {
    *enqueue(kind, subjectId, heldBy) {
      yield* run(
        `INSERT INTO jobs (kind, subject_id, seq, holder, lease_until, attempts)
         VALUES (?, ?, ${d.nextSeq('jobs')}, ?, ${now} + ?, ?)
         ON CONFLICT (kind, subject_id) DO NOTHING`,
        kind,
        subjectId,
        heldBy?.worker ?? null,
        // No lease (NULL) for a job nobody holds yet.
        heldBy?.leaseMs ?? null,
        heldBy ? 1 : 0,
      );
    },
    claim: (worker, kinds, leaseMs) =>
      first(
        `UPDATE jobs SET holder = ?, lease_until = ${now} + ?, attempts = attempts + 1
         WHERE (kind, subject_id) = (
           SELECT kind, subject_id FROM jobs
           WHERE kind IN (${marks(kinds)}) AND (holder IS NULL OR lease_until <= ${now})
           ORDER BY seq LIMIT 1${d.skipLocked})
         RETURNING kind, subject_id, attempts`,
        toLease,
        worker,
        leaseMs,
        ...kinds,
      ),
    *renew({ kind, subjectId, attempts }, worker, leaseMs) {
      const renewed = yield* run(
        `UPDATE jobs SET lease_until = ${now} + ?
         WHERE kind = ? AND subject_id = ? AND holder = ? AND attempts = ?`,
        leaseMs,
        kind,
        subjectId,
        worker,
        attempts,
      );
      return renewed > 0;
    },
    *retryLater({ kind, subjectId, attempts }, worker, ranMs, later) {
      // Its claim count unchanged, no other claim took the job, even if its lease ran out meanwhile.
      const held = yield* first(
        `SELECT ${now} AS now_ms, unavailable_since FROM jobs
         WHERE kind = ? AND subject_id = ? AND holder = ? AND attempts = ?`,
        (r) => ({
          now: Number(r.now_ms),
          since: r.unavailable_since === null ? null : Number(r.unavailable_since),
        }),
        kind,
        subjectId,
        worker,
        attempts,
      );
      if (!held) return undefined;
      // Only the time put off counts, not the time a later run worked before it met a store
      // unavailable again (a run that gets through finishes the job, and its row with it): the first
      // put-off starts the count, and each later one moves its start on by how long its run worked.
      const since = held.since === null ? held.now : Math.min(held.now, held.since + ranMs);
      const unavailableForMs = held.now - since;
      const delayMs = later(unavailableForMs);
      if (delayMs === undefined) return { unavailableForMs, putOff: false };
      // Still held by `worker` until the new lease runs out, which no renewal extends: then any claim takes it.
      const putOff = yield* run(
        `UPDATE jobs SET lease_until = ?, unavailable_since = ?, attempts = attempts - 1
         WHERE kind = ? AND subject_id = ? AND holder = ? AND attempts = ?`,
        held.now + delayMs,
        since,
        kind,
        subjectId,
        worker,
        attempts,
      );
      return putOff ? { unavailableForMs, putOff: true } : undefined;
    },
    *finish(kind, subjectId, worker) {
      return (
        (yield* run(
          'DELETE FROM jobs WHERE kind = ? AND subject_id = ? AND holder = ?',
          kind,
          subjectId,
          worker,
        )) > 0
      );
    },
    *releaseAll() {
      yield* run('UPDATE jobs SET holder = NULL, lease_until = NULL');
    },
    *cancel(kind, subjectId) {
      yield* run('DELETE FROM jobs WHERE kind = ? AND subject_id = ?', kind, subjectId);
    },
    *count() {
      return Number((yield* column('SELECT count(*) FROM jobs'))[0]);
    },
  };
}
