/**
 * Durable jobs in PostgreSQL (the StateStore port's JobTable, domain/state.ts): one row per
 * (kind, subject), held by a worker until its lease runs out. Leases are timed on the database's
 * clock (clock_timestamp(): the time of the statement, not of its transaction's start), so every
 * instance sees a lease run out at the same moment whatever its own clock says.
 *
 * A claim takes the oldest free job with FOR UPDATE SKIP LOCKED: two workers claiming at once lock
 * different rows (a row another claim holds is skipped, not waited for), and the row is re-read
 * under its lock before it is taken, so a lease renewed meanwhile is not stolen. A lease that ran
 * out cannot be renewed (the job is back in the queue, as in SQLite's table), and finish is
 * conditional on the worker still holding the job: a worker whose job was claimed by another
 * learns it from their answer (false) and publishes nothing.
 */
import type { JobKind, JobTable } from '../../domain/state.js';
import type { Sql } from './connection.js';

const leaseEnd = (parameter: string) =>
  `clock_timestamp() + make_interval(secs => ${parameter}::double precision / 1000)`;

export function jobTable(sql: Sql): JobTable {
  return {
    async enqueue(kind, subjectId) {
      await sql.rows('INSERT INTO jobs (kind, subject_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
        kind,
        subjectId,
      ]);
    },
    async claim(worker, kinds, leaseMs, subjectId) {
      const row = await sql.row(
        `UPDATE jobs SET holder = $1, lease_until = ${leaseEnd('$3')}, attempts = attempts + 1
         WHERE (kind, subject_id) = (
           SELECT kind, subject_id FROM jobs
           WHERE kind = ANY($2) AND ($4::text IS NULL OR subject_id = $4)
             AND (holder IS NULL OR lease_until <= clock_timestamp())
           ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING kind, subject_id, attempts`,
        [worker, kinds, leaseMs, subjectId ?? null],
      );
      return (
        row && {
          kind: row.kind as JobKind,
          subjectId: row.subject_id as string,
          attempts: row.attempts as number,
        }
      );
    },
    async renew(kind, subjectId, worker, leaseMs) {
      const renewed = await sql.rows(
        `UPDATE jobs SET lease_until = ${leaseEnd('$4')}
         WHERE kind = $1 AND subject_id = $2 AND holder = $3 AND lease_until > clock_timestamp() RETURNING 1`,
        [kind, subjectId, worker, leaseMs],
      );
      return renewed.length > 0;
    },
    async finish(kind, subjectId, worker) {
      const finished = await sql.rows(
        'DELETE FROM jobs WHERE kind = $1 AND subject_id = $2 AND holder = $3 RETURNING 1',
        [kind, subjectId, worker],
      );
      return finished.length > 0;
    },
    async releaseAll() {
      await sql.rows('UPDATE jobs SET holder = NULL, lease_until = NULL');
    },
    async cancel(kind, subjectId) {
      await sql.rows('DELETE FROM jobs WHERE kind = $1 AND subject_id = $2', [kind, subjectId]);
    },
    async count() {
      const [count] = await sql.column<string>('SELECT count(*) FROM jobs');
      return Number(count);
    },
  };
}
