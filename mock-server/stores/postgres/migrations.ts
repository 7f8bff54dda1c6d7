/**
 * Brings a PostgreSQL database to the schema's latest step (stores/tables/migrations.ts, run by
 * stores/tables/migrate.ts), or refuses one newer than this code with a clear error.
 */
import { POSTGRES } from '../tables/dialect.js';
import { migration } from '../tables/migrate.js';
import { MIGRATIONS, type SchemaStep } from '../tables/migrations.js';
import { perform } from './answer.js';
import type { Sql } from './connection.js';

export class DatabaseSchemaError extends Error {
  override name = 'DatabaseSchemaError';
}

export async function migrate(sql: Sql, steps: readonly SchemaStep[] = MIGRATIONS): Promise<void> {
  await perform(sql)(
    migration(
      POSTGRES,
      steps,
      (version) =>
        new DatabaseSchemaError(
          `the PostgreSQL database has schema version ${version}, newer than this mock's ${steps.length}: ` +
            'run the newer mock on it, or point --database-url at another database.',
        ),
    ),
  );
}
