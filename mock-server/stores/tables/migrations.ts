/**
 * The schema of both engines, as the ordered list of steps that builds it. A database records its
 * version (SQLite: `user_version`; PostgreSQL: the `schema_version` table); opening it runs the
 * steps it lacks (migrate.ts). Append new steps; never edit a step that has shipped.
 *
 * The list starts at version 9: the first step is the schema the first nine steps had built,
 * written once for both engines. A database at an older version is refused with a way across (a
 * snapshot taken by the mock that wrote it: docs/persistence.md, "Snapshots"), since the state a
 * mock hands on is its snapshot, whose format keeps loading, not its database file.
 *
 * The tables mean the same on both engines:
 * - Text a client chose (names, folder ids, model descriptions) is stored as JSON
 *   text (client-text.ts): SQLite's UTF-8 cannot hold a lone surrogate, PostgreSQL's `text` cannot
 *   hold NUL, and a JSON string can carry both.
 * - Columns the mock sorts on sort in code-point order: SQLite's default, PostgreSQL's
 *   `COLLATE "C"` whatever the database's default collation.
 * - Rules that must hold whoever writes are unique indexes, partial where the rule is (one live
 *   share per segmentation, one identical prediction in flight).
 * - Jobs' leases are epoch milliseconds on the engine's clock (dialect.ts nowMs).
 * - Where the engines' words differ (a `seq` column, a collation, a flag) the step asks the dialect.
 * SQLite keeps counters, faults and the journal in its one process's memory (stores/memory/);
 * PostgreSQL, shared by instances, keeps them in tables that only it has.
 */
import type { Dialect } from './dialect.js';

/** One text for both engines, or the text an engine's dialect makes of it. */
export type SchemaStep = string | ((dialect: Dialect) => string);

/** A list of steps, the first of which brings a database to version `first`. */
export interface Schema {
  first: number;
  steps: readonly SchemaStep[];
}

// Both engines' tables (SQLite reads `bigint` and `double precision` as its INTEGER and REAL),
// grouped as their statements are in organization-tables.ts, work-tables.ts, control-plane-tables.ts
// and mark-tables.ts.

const organizationTables = (d: Dialect) => `
  CREATE TABLE organizations (
    id                   text PRIMARY KEY,
    name                 text NOT NULL,
    plan_name            text NOT NULL,
    storage_cap_images   integer NOT NULL,
    monthly_analysis_cap integer NOT NULL,
    seq                  ${d.seqColumn}
  );
  -- API keys are kept hashed (domain/api-keys.ts).
  CREATE TABLE api_key_hashes (
    id              text PRIMARY KEY,
    key_hash        text NOT NULL UNIQUE,
    prefix          text NOT NULL,
    organization_id text NOT NULL REFERENCES organizations(id),
    seq             ${d.seqColumn}
  );
  CREATE INDEX api_key_hashes_by_organization ON api_key_hashes(organization_id, seq);
  CREATE TABLE analysis_usage (
    organization_id text NOT NULL REFERENCES organizations(id),
    month           text NOT NULL,
    count           integer NOT NULL,
    PRIMARY KEY (organization_id, month)
  )${d.keyedTable};
  CREATE TABLE models (
    id              text${d.codePointOrder} PRIMARY KEY,
    organization_id text REFERENCES organizations(id),
    scope           text NOT NULL CHECK (scope IN ('base', 'custom')),
    name            text${d.codePointOrder} NOT NULL,
    version         text NOT NULL,
    description     text NOT NULL,
    engine          text NOT NULL
  );
  CREATE INDEX models_by_organization ON models(organization_id);
`;

const workTables = (d: Dialect) => `
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
    has_preview     ${d.flagColumn} NOT NULL,
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
  -- Durable jobs (domain/state.ts JobTable): predictions and conversions any worker can run, each
  -- held under a lease that runs out if its worker stops renewing it.
  CREATE TABLE jobs (
    kind        text NOT NULL CHECK (kind IN ('prediction', 'conversion')),
    subject_id  text NOT NULL,
    seq         ${d.seqColumn},
    holder      text,
    lease_until bigint,
    attempts    integer NOT NULL DEFAULT 0,
    PRIMARY KEY (kind, subject_id)
  )${d.keyedTable};
  CREATE INDEX jobs_in_order ON jobs(seq);
`;

/** What the control plane and the self-service plans keep, one typed table each. */
const CONTROL_TABLES = `
  -- The mock's clock offset under '', each organization's own under its id (domain/clock.ts).
  CREATE TABLE clock_offsets (
    organization_id text PRIMARY KEY,
    offset_ms       double precision NOT NULL
  );
  -- One row once the seed was loaded: a data folder or database is seeded once, then kept.
  CREATE TABLE seed (
    single    integer PRIMARY KEY CHECK (single = 1),
    seeded_at text NOT NULL
  );
  -- JSON {storageCapImages, monthlyAnalysisCap}: the caps an organization may give itself.
  CREATE TABLE plan_bounds (
    organization_id text PRIMARY KEY,
    bounds          text NOT NULL
  );
  -- A storage slot or a completion a request holds (domain/held-marks.ts), per organization (group_key).
  CREATE TABLE held_marks (
    kind      text NOT NULL CHECK (kind IN ('slot', 'completing')),
    group_key text NOT NULL,
    id        text NOT NULL,
    until_ms  bigint NOT NULL,
    PRIMARY KEY (kind, group_key, id)
  );
  -- A ready outcome (JSON) held until the prediction's Nth poll (needed).
  CREATE TABLE poll_holds (
    prediction_id text PRIMARY KEY,
    needed        integer NOT NULL,
    outcome       text NOT NULL
  );
  -- JSON delays: the mock's defaults (subject_id ''), an organization's, a prediction's.
  CREATE TABLE progress_delays (
    scope      text NOT NULL CHECK (scope IN ('defaults', 'organization', 'prediction')),
    subject_id text NOT NULL,
    delays     text NOT NULL,
    PRIMARY KEY (scope, subject_id)
  );
  -- A JSON list of outcomes, taken first to last: an organization's next predictions', or one prediction's.
  CREATE TABLE forced_outcomes (
    scope      text NOT NULL CHECK (scope IN ('organization', 'prediction')),
    subject_id text NOT NULL,
    outcomes   text NOT NULL,
    PRIMARY KEY (scope, subject_id)
  );
`;

/** What instances that share a PostgreSQL database keep in it, where SQLite's one process keeps it in memory. */
const SHARED_ONLY = `
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
  -- A row is a run of one organization's consecutive entries in a batch (one JSON list), not one
  -- entry: a busy organization's batch is one row instead of hundreds with their index entries
  -- (postgres/journal-batches.ts). Unlogged: a debugging aid written on every request must not be
  -- what the server's WAL is made of (a crash of PostgreSQL empties it). Stored out of line
  -- uncompressed, since compressing a run cost PostgreSQL more CPU than it saved. \`kept\` counts the
  -- run's newest entries still within the organization's retention; the run's operations and
  -- statuses are kept beside it, so that a filtered read skips the runs without them.
  CREATE UNLOGGED TABLE journal (
    seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    organization_id text,
    operation_ids   text[] NOT NULL,
    statuses        integer[] NOT NULL,
    kept            integer NOT NULL,
    entries         text NOT NULL
  );
  ALTER TABLE journal ALTER COLUMN entries SET STORAGE EXTERNAL;
  CREATE INDEX journal_by_organization ON journal(organization_id, seq);
  -- Tokens (a new random one each time, so a reset never brings an old value back) changed in the
  -- transaction of every write to what they cover: what an API key maps to, and the control
  -- plane's state every request reads (clock offsets, faults). An instance keeps that state in
  -- memory and reads it again only when its token moved (postgres/request-reads.ts).
  CREATE TABLE api_key_version (
    single boolean PRIMARY KEY DEFAULT true CHECK (single),
    token  text NOT NULL
  );
  INSERT INTO api_key_version (token) VALUES (md5(random()::text));
  CREATE TABLE control_version (
    single boolean PRIMARY KEY DEFAULT true CHECK (single),
    token  text NOT NULL
  );
  INSERT INTO control_version (token) VALUES (md5(random()::text));
`;

export const SCHEMA: Schema = {
  first: 9,
  steps: [
    // 9: the schema the first nine steps had built.
    (d) =>
      organizationTables(d) + workTables(d) + CONTROL_TABLES + (d.engine === 'postgres' ? SHARED_ONLY : ''),
    // 10, PostgreSQL: a database the nine steps built names three objects otherwise than step 9
    // does; they get step 9's names, so that every database at one version is the same to the
    // steps that follow. SQLite's differ only in declared type names: nothing to do.
    (d) =>
      d.engine === 'sqlite'
        ? ''
        : `
  DO $$ BEGIN
    IF to_regclass('jobs_by_age') IS NOT NULL THEN ALTER INDEX jobs_by_age RENAME TO jobs_in_order; END IF;
    IF to_regclass('journal_runs_pkey') IS NOT NULL THEN
      ALTER TABLE journal RENAME CONSTRAINT journal_runs_pkey TO journal_pkey;
    END IF;
    IF to_regclass('journal_runs_seq_seq') IS NOT NULL THEN
      ALTER SEQUENCE journal_runs_seq_seq RENAME TO journal_seq_seq;
    END IF;
  END $$;
`,
    // 11: when a job's runs began meeting a store unavailable for a moment (epoch ms on the
    // engine's clock, moved on by its later runs' working time; NULL when none did), so that any
    // instance gives up on it after the same bound.
    () => 'ALTER TABLE jobs ADD COLUMN unavailable_since bigint;',
  ],
};
