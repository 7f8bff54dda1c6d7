/**
 * PostgreSQL's schema, as the ordered steps that build it: the same tables, columns and meaning as
 * SQLite's (stores/database/migrations.ts), and the same rules. The database records how many
 * steps it has taken (`schema_version`); opening it runs the steps it lacks; a database newer than
 * this code is refused with a clear error. Append new steps; never edit a step that has shipped.
 *
 * Instances that start at once all open the database: the first takes a transaction-scoped
 * advisory lock and migrates, the others wait on the lock and then find nothing left to do. DDL is
 * transactional in PostgreSQL, so a step that fails leaves the schema as it was.
 *
 * Text a client chose (names, folders, descriptions, fault details, journal bodies) is stored as
 * JSON text, as in SQLite: PostgreSQL's `text` cannot hold NUL, and `jsonb` refuses both NUL
 * (\u0000) and lone surrogates, which a JSON body can carry; JSON-escaped they read back exactly.
 * Columns the mock sorts on are `COLLATE "C"` (code-point order, as SQLite's), whatever the
 * database's default collation.
 */
import type { Sql } from './connection.js';

export class DatabaseSchemaError extends Error {
  override name = 'DatabaseSchemaError';
}

/** Any fixed number: it names this mock's migration lock among the database's advisory locks. */
const MIGRATION_LOCK = 0x63656c6c; // "cell"

export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE organizations (
    id                   text PRIMARY KEY,
    name                 text NOT NULL,
    plan_name            text NOT NULL,
    storage_cap_images   integer NOT NULL,
    monthly_analysis_cap integer NOT NULL,
    seq                  bigint GENERATED ALWAYS AS IDENTITY
  );
  CREATE TABLE api_key_hashes (
    id              text PRIMARY KEY,
    key_hash        text NOT NULL UNIQUE,
    prefix          text NOT NULL,
    organization_id text NOT NULL REFERENCES organizations(id),
    seq             bigint GENERATED ALWAYS AS IDENTITY
  );
  CREATE INDEX api_key_hashes_by_organization ON api_key_hashes(organization_id, seq);
  CREATE TABLE analysis_usage (
    organization_id text NOT NULL REFERENCES organizations(id),
    month           text NOT NULL,
    count           integer NOT NULL,
    PRIMARY KEY (organization_id, month)
  );
  CREATE TABLE models (
    id              text COLLATE "C" PRIMARY KEY,
    organization_id text REFERENCES organizations(id),
    scope           text NOT NULL CHECK (scope IN ('base', 'custom')),
    name            text COLLATE "C" NOT NULL,
    version         text NOT NULL,
    description     text NOT NULL,
    engine          text NOT NULL
  );
  CREATE INDEX models_by_organization ON models(organization_id);
  CREATE TABLE images (
    id                  text PRIMARY KEY,
    organization_id     text NOT NULL REFERENCES organizations(id),
    name                text NOT NULL,
    size                bigint NOT NULL,
    shape               text,
    upload_status       text NOT NULL CHECK (upload_status IN ('uploading', 'processing', 'ready', 'failed')),
    upload_error        text,
    created_at          text NOT NULL,
    processed_at        text,
    metadata            text NOT NULL,
    folder_id           text,
    storage_key         text NOT NULL UNIQUE,
    multipart_upload_id text,
    derived             text,
    conversion_attempts integer NOT NULL DEFAULT 0
  );
  CREATE INDEX images_by_organization ON images(organization_id);
  CREATE INDEX images_by_status ON images(upload_status);
  CREATE TABLE predictions (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations(id),
    image_id        text NOT NULL,
    model_id        text NOT NULL,
    status          text NOT NULL CHECK (status IN ('SUBMITTED', 'STARTED', 'COMPLETED', 'FAILED')),
    created_at      text NOT NULL,
    started_at      text,
    finished_at     text,
    segmentation_id text,
    cell_count      integer,
    error           text,
    run_attempts    integer NOT NULL DEFAULT 0
  );
  CREATE INDEX predictions_by_image ON predictions(image_id, model_id, status);
  CREATE INDEX predictions_by_organization ON predictions(organization_id);
  CREATE INDEX predictions_by_status ON predictions(status);
  -- One identical prediction in flight: a second SUBMITTED/STARTED row for the same image and model
  -- cannot commit, whichever instance writes it.
  CREATE UNIQUE INDEX predictions_one_in_flight ON predictions(organization_id, image_id, model_id)
    WHERE status IN ('SUBMITTED', 'STARTED');
  CREATE TABLE segmentations (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations(id),
    prediction_id   text NOT NULL,
    image_id        text NOT NULL,
    image_name      text NOT NULL,
    model_id        text NOT NULL,
    model_name      text NOT NULL,
    source          text NOT NULL,
    cell_count      integer NOT NULL,
    roi_ids         text NOT NULL,
    has_preview     boolean NOT NULL,
    created_at      text NOT NULL
  );
  CREATE INDEX segmentations_by_image ON segmentations(image_id);
  CREATE INDEX segmentations_by_organization ON segmentations(organization_id);
  CREATE TABLE shares (
    id              text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations(id),
    segmentation_id text NOT NULL,
    token           text NOT NULL UNIQUE,
    view_count      integer NOT NULL,
    last_viewed_at  text,
    created_at      text NOT NULL,
    revoked_at      text
  );
  CREATE INDEX shares_by_segmentation ON shares(segmentation_id);
  CREATE INDEX shares_by_organization ON shares(organization_id);
  -- One live share per segmentation, whichever instance creates it.
  CREATE UNIQUE INDEX shares_one_live_per_segmentation ON shares(segmentation_id) WHERE revoked_at IS NULL;
  CREATE TABLE settings (
    key   text COLLATE "C" PRIMARY KEY,
    value text NOT NULL
  );
  CREATE TABLE counters (
    key   text PRIMARY KEY,
    value bigint NOT NULL
  );
  CREATE TABLE faults (
    id              text PRIMARY KEY,
    seq             bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    operation_id    text NOT NULL,
    organization_id text,
    spec            text NOT NULL,
    times           integer,
    hits            integer NOT NULL DEFAULT 0
  );
  CREATE INDEX faults_by_operation ON faults(operation_id, seq);
  CREATE TABLE journal (
    seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    operation_id    text,
    organization_id text,
    status          integer NOT NULL,
    entry           text NOT NULL
  );
  CREATE TABLE jobs (
    kind        text NOT NULL CHECK (kind IN ('prediction', 'conversion')),
    subject_id  text NOT NULL,
    seq         bigint GENERATED ALWAYS AS IDENTITY,
    holder      text,
    lease_until timestamptz,
    attempts    integer NOT NULL DEFAULT 0,
    PRIMARY KEY (kind, subject_id)
  );
  CREATE INDEX jobs_by_age ON jobs(seq);
  `,
  // Requests per API key in the window now running (shared-tables.ts, rateWindowTable).
  `
  CREATE TABLE rate_windows (
    key          text PRIMARY KEY,
    window_start bigint NOT NULL,
    count        integer NOT NULL
  );
  `,
  // Changed (to a new random token) by every write that changes what an API key maps to: an
  // instance that reads a token other than the one its key cache was filled under empties the cache
  // (postgres-state-store.ts). A token, not a counter, so a reset can never bring an old value back.
  `
  CREATE TABLE api_key_version (
    single boolean PRIMARY KEY DEFAULT true CHECK (single),
    token  text NOT NULL
  );
  INSERT INTO api_key_version (token) VALUES (md5(random()::text));
  `,
];

/** Brings the database to `steps.length` steps, or refuses one that has taken more. */
export async function migrate(sql: Sql, steps: readonly string[] = MIGRATIONS): Promise<void> {
  await sql.transaction(async () => {
    await sql.rows('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await sql.rows('CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL)');
    const [recorded] = await sql.column<number>('SELECT version FROM schema_version');
    const version = recorded ?? 0;
    if (version > steps.length)
      throw new DatabaseSchemaError(
        `the PostgreSQL database has schema version ${version}, newer than this mock's ${steps.length}: ` +
          'run the newer mock on it, or point --database-url at another database.',
      );
    for (let step = version; step < steps.length; step++) await sql.rows(steps[step]);
    if (recorded === undefined)
      await sql.rows('INSERT INTO schema_version (version) VALUES ($1)', [steps.length]);
    else await sql.rows('UPDATE schema_version SET version = $1', [steps.length]);
  });
}
