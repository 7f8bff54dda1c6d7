/**
 * Durable jobs in SQLite (domain/state.ts JobTable; schema step 3 in database/migrations.ts). One
 * process owns the database, so its own clock times the leases, in epoch milliseconds.
 */
import type { JobKind, JobTable } from '../../domain/state.js';
import type { Statements } from './database/statements.js';
import type { Synchronous } from './transaction-gate.js';

export function jobTable(db: Statements, now: () => number = Date.now): Synchronous<JobTable> {
  return {
    enqueue(kind, subjectId, heldBy) {
      db.prepare(
        `INSERT INTO jobs (kind, subject_id, seq, holder, lease_until, attempts)
         VALUES (?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM jobs), ?, ?, ?)
         ON CONFLICT (kind, subject_id) DO NOTHING`,
      ).run(kind, subjectId, heldBy?.worker ?? null, heldBy ? now() + heldBy.leaseMs : null, heldBy ? 1 : 0);
    },
    claim(worker, kinds, leaseMs) {
      const at = now();
      const marks = kinds.map(() => '?').join(', ');
      const row = db.row(
        `SELECT kind, subject_id, attempts FROM jobs
         WHERE kind IN (${marks}) AND (holder IS NULL OR lease_until <= ?) ORDER BY seq LIMIT 1`,
        ...kinds,
        at,
      );
      if (!row) return undefined;
      db.prepare(
        'UPDATE jobs SET holder = ?, lease_until = ?, attempts = attempts + 1 WHERE kind = ? AND subject_id = ?',
      ).run(worker, at + leaseMs, row.kind as string, row.subject_id as string);
      return {
        kind: row.kind as JobKind,
        subjectId: row.subject_id as string,
        attempts: (row.attempts as number) + 1,
      };
    },
    renew(kind, subjectId, worker, leaseMs) {
      const at = now();
      return (
        db
          .prepare(
            'UPDATE jobs SET lease_until = ? WHERE kind = ? AND subject_id = ? AND holder = ? AND lease_until > ?',
          )
          .run(at + leaseMs, kind, subjectId, worker, at).changes > 0
      );
    },
    finish(kind, subjectId, worker) {
      return (
        db
          .prepare('DELETE FROM jobs WHERE kind = ? AND subject_id = ? AND holder = ?')
          .run(kind, subjectId, worker).changes > 0
      );
    },
    releaseAll() {
      db.prepare('UPDATE jobs SET holder = NULL, lease_until = NULL').run();
    },
    cancel(kind, subjectId) {
      db.prepare('DELETE FROM jobs WHERE kind = ? AND subject_id = ?').run(kind, subjectId);
    },
    count() {
      return db.column<number>('SELECT count(*) FROM jobs')[0];
    },
  };
}
