/**
 * The schema, as the ordered list of steps that build it. Text a client chose (names, folder ids,
 * model descriptions) is stored as JSON text, so any string a JSON body can carry reads back
 * exactly (see clientText in sqlite-state-store.ts). A data folder records how many steps it
 * has taken in SQLite's `user_version`; opening it runs the steps it lacks, each in its own
 * transaction. Append new steps; never edit a step that has shipped. Steps may call `sha256_hex(text)`,
 * which openDatabase registers before it migrates.
 */
export const MIGRATIONS: readonly string[] = [
  `
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
  // 2: API keys are kept hashed (domain/api-keys.ts): the clear keys of an older folder are hashed
  // and dropped (secure_delete, set by openDatabase, overwrites the pages they were on).
  `
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
  // 3: durable jobs (domain/state.ts JobTable): predictions and conversions any worker can run,
  // each held under a lease that runs out if its worker stops renewing it.
  `
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
];
