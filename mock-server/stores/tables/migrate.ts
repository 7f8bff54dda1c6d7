/**
 * The one runner of the schema's steps (migrations.ts), for both engines:
 *
 *   migration(dialect, schema, refused) -> Work    run by the engine (work.ts) when it opens
 *
 * One transaction: the version is read, every step the database lacks runs, the new version is
 * written; a step that fails leaves the schema as it was (DDL is transactional on both engines). A
 * database older than the schema's first step, or newer than its last, is refused with the
 * engine's own error (`refused`, its words from `refusalText`). On PostgreSQL,
 * instances that start at once all open the database: the first takes a transaction-scoped
 * advisory lock and migrates, the others wait on the lock and then find nothing left to do.
 */
import type { Dialect } from './dialect.js';
import type { Schema } from './migrations.js';
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

/** The version a database has once it has taken every step of `schema`. */
export const latestVersion = (schema: Schema): number => schema.first + schema.steps.length - 1;

/**
 * Why a database at `version` is not opened, and what to do: `database` names it, `another` says
 * where else this mock may start ("another --data-dir"), `elsewhere` how to point it there.
 */
export function refusalText(
  schema: Schema,
  version: number,
  { database, another, elsewhere }: { database: string; another: string; elsewhere: string },
): string {
  const latest = latestVersion(schema);
  return version > latest
    ? `${database} has schema version ${version}, newer than this mock's ${latest}: run the newer mock on it, or ${elsewhere}.`
    : `${database} has schema version ${version}, from before this mock's first (${schema.first}): take a ` +
        'snapshot with the mock that wrote it (GET /__mock/snapshot) and load it into this one on ' +
        `${another} (--snapshot FILE), or ${elsewhere}.`;
}

/** Brings the database to the schema's latest version; answers the version it had. */
export function migration(
  dialect: Dialect,
  schema: Schema,
  refused: (version: number) => Error,
): Work<number> {
  const version = VERSION[dialect.engine];
  const latest = latestVersion(schema);
  return atomic(
    (function* () {
      const had = yield* version.read();
      if (had > latest || (had > 0 && had < schema.first)) throw refused(had);
      if (had === latest) return had;
      for (const step of schema.steps.slice(had === 0 ? 0 : had - schema.first + 1))
        yield* script(typeof step === 'string' ? step : step(dialect));
      yield* version.write(latest);
      return had;
    })(),
  );
}
