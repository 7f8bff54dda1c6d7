/**
 * The schema of both engines, as the one ordered list of steps that builds it. A database records
 * how many steps it has taken (SQLite: `user_version`; PostgreSQL: the `schema_version` table);
 * opening it runs the steps it lacks (migrate.ts). Append new steps; never edit a step that has
 * shipped.
 *
 * Steps 1 to 3 are what each engine had shipped before the engines shared their tables: SQLite
 * kept counters, faults, the journal and rate windows in its one process's memory, PostgreSQL in
 * tables; their texts stay as they were, so that every data folder and database written since opens.
 * From step 4 the schema is the same on both: a step is one text for both engines, or one for each
 * only where their types differ.
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
 *
 * SQLite's steps may call `sha256_hex(text)`, which openDatabase registers before it migrates.
 */

/** Step 5's tables, one text for both engines (SQLite reads `double precision` and `bigint` as its REAL and INTEGER). */
const TYPED_SETTINGS = `
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

/** How an engine's SQL reads a setting's value (client text: a JSON string) in step 5. */
interface SettingReader {
  /** The value's text. */
  text: string;
  /** A number field of the value's JSON text. */
  field(json: string, name: string): string;
  /** An object field of the value's JSON text, as JSON text. */
  object(json: string, name: string): string;
  /** The value's JSON text as a one-element JSON list. */
  listOf(json: string): string;
  /** Where `needle` is in `text`, from 1 (0: nowhere). */
  find(text: string, needle: string): string;
  number: string;
}

const SQLITE_SETTING: SettingReader = {
  text: "json_extract(value, '$')",
  field: (json, name) => `json_extract(${json}, '$.${name}')`,
  object: (json, name) => `json_extract(${json}, '$.${name}')`,
  listOf: (json) => `json_array(json(${json}))`,
  find: (text, needle) => `instr(${text}, ${needle})`,
  number: 'REAL',
};

const POSTGRES_SETTING: SettingReader = {
  text: "(value::json #>> '{}')",
  field: (json, name) => `(${json}::json ->> '${name}')::integer`,
  object: (json, name) => `(${json}::json -> '${name}')::text`,
  listOf: (json) => `json_build_array(${json}::json)::text`,
  find: (text, needle) => `strpos(${text}, ${needle})`,
  number: 'double precision',
};

/** Copies each prefixed key's rows into its table (held marks' keys are `kind/group/id`), then drops `settings`. */
function copiedOutOfSettings(e: SettingReader): string {
  const v = e.text;
  const after = (prefix: string) => `substr(key, ${prefix.length + 1})`;
  const startsWith = (prefix: string) => `substr(key, 1, ${prefix.length}) = '${prefix}'`;
  const marks = (kind: string) =>
    `SELECT '${kind}' AS kind, ${after(`${kind}/`)} AS rest, ${v} AS v FROM settings WHERE ${startsWith(`${kind}/`)}`;
  const slash = e.find('rest', "'/'");
  const delays = (scope: string, prefix: string) =>
    `INSERT INTO progress_delays (scope, subject_id, delays)
    SELECT '${scope}', ${after(prefix)}, ${v} FROM settings WHERE ${startsWith(prefix)};`;
  return `
  INSERT INTO clock_offsets (organization_id, offset_ms)
    SELECT CASE WHEN key = 'clock_offset_ms' THEN '' ELSE ${after('clock_offset_ms:')} END, CAST(${v} AS ${e.number})
    FROM settings WHERE key = 'clock_offset_ms' OR ${startsWith('clock_offset_ms:')};
  INSERT INTO seed (single, seeded_at) SELECT 1, ${v} FROM settings WHERE key = 'seeded_at';
  INSERT INTO plan_bounds (organization_id, bounds)
    SELECT ${after('self_service_plan:')}, ${v} FROM settings WHERE ${startsWith('self_service_plan:')};
  INSERT INTO held_marks (kind, group_key, id, until_ms)
    SELECT kind, substr(rest, 1, ${slash} - 1), substr(rest, ${slash} + 1), CAST(v AS bigint)
    FROM (${marks('slot')} UNION ALL ${marks('completing')}) AS marks WHERE ${slash} > 0;
  INSERT INTO poll_holds (prediction_id, needed, outcome)
    SELECT ${after('held-outcome/')}, ${e.field(v, 'needed')}, ${e.object(v, 'outcome')}
    FROM settings WHERE ${startsWith('held-outcome/')};
  INSERT INTO progress_delays (scope, subject_id, delays)
    SELECT 'defaults', '', ${v} FROM settings WHERE key = 'progress/defaults';
  ${delays('organization', 'progress/organization/')}
  ${delays('prediction', 'progress/prediction/')}
  INSERT INTO forced_outcomes (scope, subject_id, outcomes)
    SELECT 'organization', ${after('progress/forced-next/')}, ${v} FROM settings WHERE ${startsWith('progress/forced-next/')};
  INSERT INTO forced_outcomes (scope, subject_id, outcomes)
    SELECT 'prediction', ${after('progress/forced-on/')}, ${e.listOf(v)} FROM settings WHERE ${startsWith('progress/forced-on/')};
  DROP TABLE settings;
  `;
}

/** One text for both engines, or one for each. */
export type SchemaStep = string | { sqlite: string; postgres: string };

export const MIGRATIONS: readonly SchemaStep[] = [
  // 1: the first schema of each engine.
  {
    sqlite: `
  CREATE TABLE organizations (
    id                   TEXT PRIMARY KEY,
    name                 TEXT NOT NULL,
    plan_name            TEXT NOT NULL,
    storage_cap_images   INTEGER NOT NULL,
    monthly_analysis_cap INTEGER NOT NULL,
    seq                  INTEGER NOT NULL
  );
  CREATE TABLE api_keys (
    key             TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id),
    seq             INTEGER NOT NULL
  );
  CREATE INDEX api_keys_by_organization ON api_keys(organization_id, seq);
  CREATE TABLE analysis_usage (
    organization_id TEXT NOT NULL REFERENCES organizations(id),
    month           TEXT NOT NULL,
    count           INTEGER NOT NULL,
    PRIMARY KEY (organization_id, month)
  ) WITHOUT ROWID;
  CREATE TABLE models (
    id              TEXT PRIMARY KEY,
    organization_id TEXT REFERENCES organizations(id),
    scope           TEXT NOT NULL CHECK (scope IN ('base', 'custom')),
    name            TEXT NOT NULL,
    version         TEXT NOT NULL,
    description     TEXT NOT NULL,
    engine          TEXT NOT NULL
  );
  CREATE INDEX models_by_organization ON models(organization_id);
  CREATE TABLE images (
    id                  TEXT PRIMARY KEY,
    organization_id     TEXT NOT NULL REFERENCES organizations(id),
    name                TEXT NOT NULL,
    size                INTEGER NOT NULL,
    shape               TEXT,
    upload_status       TEXT NOT NULL CHECK (upload_status IN ('uploading', 'processing', 'ready', 'failed')),
    upload_error        TEXT,
    created_at          TEXT NOT NULL,
    processed_at        TEXT,
    metadata            TEXT NOT NULL,
    folder_id           TEXT,
    storage_key         TEXT NOT NULL UNIQUE,
    multipart_upload_id TEXT,
    derived             TEXT,
    conversion_attempts INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX images_by_organization ON images(organization_id);
  CREATE INDEX images_by_status ON images(upload_status);
  CREATE TABLE predictions (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id),
    image_id        TEXT NOT NULL,
    model_id        TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('SUBMITTED', 'STARTED', 'COMPLETED', 'FAILED')),
    created_at      TEXT NOT NULL,
    started_at      TEXT,
    finished_at     TEXT,
    segmentation_id TEXT,
    cell_count      INTEGER,
    error           TEXT,
    run_attempts    INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX predictions_by_image ON predictions(image_id, model_id, status);
  CREATE INDEX predictions_by_organization ON predictions(organization_id);
  CREATE INDEX predictions_by_status ON predictions(status);
  CREATE TABLE segmentations (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id),
    prediction_id   TEXT NOT NULL,
    image_id        TEXT NOT NULL,
    image_name      TEXT NOT NULL,
    model_id        TEXT NOT NULL,
    model_name      TEXT NOT NULL,
    source          TEXT NOT NULL,
    cell_count      INTEGER NOT NULL,
    roi_ids         TEXT NOT NULL,
    has_preview     INTEGER NOT NULL,
    created_at      TEXT NOT NULL
  );
  CREATE INDEX segmentations_by_image ON segmentations(image_id);
  CREATE INDEX segmentations_by_organization ON segmentations(organization_id);
  CREATE TABLE shares (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id),
    segmentation_id TEXT NOT NULL,
    token           TEXT NOT NULL UNIQUE,
    view_count      INTEGER NOT NULL,
    last_viewed_at  TEXT,
    created_at      TEXT NOT NULL,
    revoked_at      TEXT
  );
  CREATE INDEX shares_by_segmentation ON shares(segmentation_id);
  CREATE INDEX shares_by_organization ON shares(organization_id);
  CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `,
    postgres: `
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
  },
  // 2, SQLite: API keys are kept hashed (domain/api-keys.ts): the clear keys of an older folder are
  // hashed and dropped (secure_delete, set by openDatabase, overwrites the pages they were on).
  // PostgreSQL: requests per API key in the window now running (postgres/shared-tables.ts).
  {
    sqlite: `
  CREATE TABLE api_key_hashes (
    id              TEXT PRIMARY KEY,
    key_hash        TEXT NOT NULL UNIQUE,
    prefix          TEXT NOT NULL,
    organization_id TEXT NOT NULL REFERENCES organizations(id),
    seq             INTEGER NOT NULL
  );
  CREATE INDEX api_key_hashes_by_organization ON api_key_hashes(organization_id, seq);
  INSERT INTO api_key_hashes (id, key_hash, prefix, organization_id, seq)
    SELECT 'key_' || substr(sha256_hex(key), 1, 16), sha256_hex(key), substr(key, 1, 12), organization_id, seq
    FROM api_keys;
  DROP TABLE api_keys;
  `,
    postgres: `
  CREATE TABLE rate_windows (
    key          text PRIMARY KEY,
    window_start bigint NOT NULL,
    count        integer NOT NULL
  );
  `,
  },
  // 3, SQLite: durable jobs (domain/state.ts JobTable): predictions and conversions any worker can
  // run, each held under a lease that runs out if its worker stops renewing it.
  // PostgreSQL: a token changed (to a new random one) by every write that changes what an API key
  // maps to: an instance that reads a token other than the one its key cache was filled under empties
  // the cache (postgres-state-store.ts). A token, not a counter, so a reset never brings an old value back.
  {
    sqlite: `
  CREATE TABLE jobs (
    kind        TEXT NOT NULL CHECK (kind IN ('prediction', 'conversion')),
    subject_id  TEXT NOT NULL,
    seq         INTEGER NOT NULL,
    holder      TEXT,
    lease_until INTEGER,
    attempts    INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (kind, subject_id)
  ) WITHOUT ROWID;
  CREATE INDEX jobs_in_order ON jobs(seq);
  `,
    postgres: `
  CREATE TABLE api_key_version (
    single boolean PRIMARY KEY DEFAULT true CHECK (single),
    token  text NOT NULL
  );
  INSERT INTO api_key_version (token) VALUES (md5(random()::text));
  `,
  },
  // 4: the rules PostgreSQL keeps with partial unique indexes are kept by the same indexes on SQLite;
  // SQLite's setting values are stored as client text, as PostgreSQL's are; PostgreSQL's leases are
  // epoch milliseconds, as SQLite's are.
  {
    sqlite: `
  CREATE UNIQUE INDEX predictions_one_in_flight ON predictions(organization_id, image_id, model_id)
    WHERE status IN ('SUBMITTED', 'STARTED');
  CREATE UNIQUE INDEX shares_one_live_per_segmentation ON shares(segmentation_id) WHERE revoked_at IS NULL;
  UPDATE settings SET value = json_quote(value);
  `,
    postgres: `
  ALTER TABLE jobs ALTER COLUMN lease_until TYPE bigint
    USING (extract(epoch FROM lease_until) * 1000)::bigint;
  `,
  },
  // 5: what was kept in \`settings\` under prefixed keys gets a table each (one text for both
  // engines); the rows are copied out of \`settings\` by key (each engine reads a setting's client
  // text its own way), and \`settings\`, which then holds nothing the mock reads, is dropped.
  {
    sqlite: TYPED_SETTINGS + copiedOutOfSettings(SQLITE_SETTING),
    postgres: TYPED_SETTINGS + copiedOutOfSettings(POSTGRES_SETTING),
  },
  // 6, PostgreSQL: the journal keeps the newest entries of each organization (postgres/journal-batches.ts),
  // trimmed per organization through this index; and it is unlogged: a debugging aid written on
  // every request must not be what the server's WAL is made of (a crash of PostgreSQL empties it).
  // SQLite keeps its journal in memory: nothing to do.
  {
    sqlite: '',
    postgres: `
  CREATE INDEX journal_by_organization ON journal(organization_id, seq);
  ALTER TABLE journal SET UNLOGGED;
  `,
  },
  // 7, PostgreSQL: rate windows are counted in each instance's memory (domain/abuse-limits.ts), so
  // no request writes one; the table goes. SQLite never had it.
  {
    sqlite: '',
    postgres: `
  DROP TABLE rate_windows;
  `,
  },
  // 8, PostgreSQL: the version of the control plane's state every request reads (clock offsets,
  // faults), changed in the transaction of every write to it, as api_key_version is for the keys:
  // an instance keeps that state in memory and reads it again only when the version moved
  // (postgres/request-reads.ts). SQLite's one process memoizes its reads until a write: nothing to do.
  {
    sqlite: '',
    postgres: `
  CREATE TABLE control_version (
    single boolean PRIMARY KEY DEFAULT true CHECK (single),
    token  text NOT NULL
  );
  INSERT INTO control_version (token) VALUES (md5(random()::text));
  `,
  },
  // 9, PostgreSQL: a journal row is a run of one organization's consecutive entries in a batch (one
  // JSON list), not one entry: a busy organization's batch is one row instead of hundreds with their
  // index entries (postgres/journal-batches.ts); stored out of line uncompressed, since compressing
  // a run cost PostgreSQL more CPU than it saved. `kept` counts the run's newest entries still within
  // the organization's retention; the run's operations and statuses are kept beside it, so that a
  // filtered read skips the runs without them. Each old row becomes a run of one. SQLite keeps its
  // journal in memory: nothing to do.
  {
    sqlite: '',
    postgres: `
  CREATE UNLOGGED TABLE journal_runs (
    seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    organization_id text,
    operation_ids   text[] NOT NULL,
    statuses        integer[] NOT NULL,
    kept            integer NOT NULL,
    entries         text NOT NULL
  );
  ALTER TABLE journal_runs ALTER COLUMN entries SET STORAGE EXTERNAL;
  INSERT INTO journal_runs (organization_id, operation_ids, statuses, kept, entries)
    SELECT organization_id, ARRAY[operation_id], ARRAY[status], 1, '[' || entry || ']' FROM journal ORDER BY seq;
  DROP TABLE journal;
  ALTER TABLE journal_runs RENAME TO journal;
  CREATE INDEX journal_by_organization ON journal(organization_id, seq);
  `,
  },
];
