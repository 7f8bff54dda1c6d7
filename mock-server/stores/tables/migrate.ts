/**
 * The one runner of the schema's steps (migrations.ts), for both engines:
 *
 *   migration(dialect, steps, tooNew) -> Work    run by the engine (work.ts) when it opens
 *
 * One transaction: the version is read, every step the database lacks runs, the new version is
 * written; a step that fails leaves the schema as it was (DDL is transactional on both engines). A
 * database newer than the steps is refused with the engine's own error (`tooNew`). On PostgreSQL,
 * instances that start at once all open the database: the first takes a transaction-scoped
 * advisory lock and migrates, the others wait on the lock and then find nothing left to do.
 */
import type { Dialect } from './dialect.js';
import type { SchemaStep } from './migrations.js';
import { atomic, column, script, type Work } from './work.js';

/** Any fixed number: it names this mock's migration lock among the database's advisory locks. */
const MIGRATION_LOCK = 0x63656c6c; // "cell"

/** Where each engine records the steps it has taken. */
const VERSION = {
  sqlite: {
    *read(): Work<number> {
      return (yield* column<number>('PRAGMA user_version'))[0];
    },
    write: (version: number) => script(`PRAGMA user_version = ${version}`),
  },
  postgres: {
    *read(): Work<number> {
      yield* column(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
      yield* script('CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL)');
      const [recorded] = yield* column<number>('SELECT version FROM schema_version');
      return recorded ?? 0;
    },
    *write(version: number): Work<void> {
      yield* script(`DELETE FROM schema_version; INSERT INTO schema_version (version) VALUES (${version})`);
    },
  },
};

/** Brings the database to `steps.length` steps; answers the version it had. */
export function migration(
  dialect: Dialect,
  steps: readonly SchemaStep[],
  tooNew: (version: number) => Error,
): Work<number> {
  const version = VERSION[dialect.engine];
  return atomic(
    (function* () {
      const had = yield* version.read();
      if (had > steps.length) throw tooNew(had);
      if (had === steps.length) return had;
      for (const step of steps.slice(had))
        yield* script(typeof step === 'string' ? step : step[dialect.engine]);
      yield* version.write(steps.length);
      return had;
    })(),
  );
}
