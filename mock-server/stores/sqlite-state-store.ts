/**
 * The mock's state in SQLite (Node's built-in node:sqlite): the `StateStore` port of domain/state.ts. Tables and
 * indexes are in database/migrations.ts; every per-organization read and every lookup by id or
 * token goes through an index, so it costs the same however many other records there are.
 *
 * Reads return fresh objects; writes are statements in the caller's transaction. `transaction`
 * nests (an inner call joins the outer one), and turns "disk full" into the domain's
 * `storage_full`, after which the database is as it was before the transaction began.
 */
import { storageFull } from '../domain/errors.js';
import type { ImageRecord, UploadStatus } from '../domain/images/image-record.js';
import type { ModelRecord } from '../domain/models/model-record.js';
import type { Organization, Plan } from '../domain/organizations.js';
import type {
  PredictionRecord,
  PredictionStatus,
  SegmentationRow,
} from '../domain/predictions/prediction-record.js';
import type { ShareRecord } from '../domain/shares/share-record.js';
import type {
  ImageTable,
  ModelTable,
  OrganizationTable,
  PredictionTable,
  SegmentationTable,
  SettingsTable,
  ShareTable,
  StateStore,
  UsageTable,
} from '../domain/state.js';
import type { Database, Statement } from './database/node-sqlite.js';
import { sqliteResultName } from './database/node-sqlite.js';
import { inTransaction } from './database/transaction.js';

type Row = Record<string, unknown>;

/** The part of a database the tables use: statements compiled once and kept (SQL text -> statement). */
interface Statements {
  prepare(sql: string): Statement;
  /** Runs a statement with `@name` parameters, binding each from the like-named field of `record` (other fields are left out). */
  runNamed(sql: string, record: object): void;
  /** The first row, or undefined. */
  row(sql: string, ...args: unknown[]): Row | undefined;
  /** The first column of every row. */
  column<T = string>(sql: string, ...args: unknown[]): T[];
}

type Bindable = null | number | bigint | string | NodeJS.ArrayBufferView;

function statementCache(db: Database): Statements {
  const compiled = new Map<string, Statement>();
  const prepare = (sql: string) => {
    let statement = compiled.get(sql);
    if (!statement) compiled.set(sql, (statement = db.prepare(sql)));
    return statement;
  };
  const parameterNames = new Map<string, string[]>();
  return {
    prepare,
    row: (sql, ...args) => prepare(sql).get(...(args as Bindable[])) as Row | undefined,
    column<T>(sql: string, ...args: unknown[]) {
      return prepare(sql)
        .all(...(args as Bindable[]))
        .map((row) => Object.values(row)[0] as T);
    },
    runNamed(sql, record) {
      let names = parameterNames.get(sql);
      if (!names) parameterNames.set(sql, (names = [...new Set(sql.match(/(?<=@)\w+/g))]));
      const fields = record as Record<string, Bindable>;
      prepare(sql).run(Object.fromEntries(names.map((name) => [name, fields[name]])));
    },
  };
}

export class SqliteStateStore implements StateStore {
  readonly organizations: OrganizationTable;
  readonly usage: UsageTable;
  readonly models: ModelTable;
  readonly images: ImageTable;
  readonly predictions: PredictionTable;
  readonly segmentations: SegmentationTable;
  readonly shares: ShareTable;
  readonly settings: SettingsTable;

  constructor(private readonly db: Database) {
    const statements = statementCache(db);
    this.organizations = organizationTable(statements);
    this.usage = usageTable(statements);
    this.models = modelTable(statements);
    this.images = imageTable(statements);
    this.predictions = predictionTable(statements);
    this.segmentations = segmentationTable(statements);
    this.shares = shareTable(statements);
    this.settings = settingsTable(statements);
  }

  transaction<T>(work: () => T): T {
    if (this.db.isTransaction) return work();
    try {
      return inTransaction(this.db, work);
    } catch (err) {
      throw isDiskFull(err) ? storageFull() : err;
    }
  }

  organizationForKey(key: string): Organization | undefined {
    const row = this.db.prepare('SELECT organization_id FROM api_keys WHERE key = ?').get(key) as
      { organization_id: string } | undefined;
    return row && this.organizations.get(row.organization_id);
  }

  clear(): void {
    this.transaction(() => {
      for (const table of [
        'shares',
        'segmentations',
        'predictions',
        'images',
        'models',
        'analysis_usage',
        'api_keys',
        'organizations',
        'settings',
      ])
        this.db.prepare(`DELETE FROM ${table}`).run();
    });
  }

  close(): void {
    this.db.close();
  }
}

/**
 * A client's text (a name, a folder) as stored: JSON text. SQLite keeps TEXT as UTF-8, which
 * cannot hold a lone UTF-16 surrogate (valid in a JSON string, so a client can send one); JSON
 * escapes it, so the name reads back exactly as it was sent.
 */
const clientText = (text: string): string => JSON.stringify(text);
const fromClientText = (stored: unknown): string => JSON.parse(stored as string) as string;

/** SQLITE_FULL from the database, ENOSPC from a file written inside the transaction. */
export function isDiskFull(err: unknown): boolean {
  const code = sqliteResultName(err) ?? (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'SQLITE_IOERR_WRITE';
}

function organizationTable(db: Statements): OrganizationTable {
  const keysOf = (orgId: unknown) =>
    db.column('SELECT key FROM api_keys WHERE organization_id = ? ORDER BY seq', orgId);
  const toOrganization = (r: Row): Organization => ({
    id: r.id as string,
    name: fromClientText(r.name),
    plan: {
      name: r.plan_name as string,
      storageCapImages: r.storage_cap_images as number,
      monthlyAnalysisCap: r.monthly_analysis_cap as number,
    },
    apiKeys: keysOf(r.id),
  });
  const nextSeq = (table: string) => db.column<number>(`SELECT coalesce(max(seq), 0) + 1 FROM ${table}`)[0];
  const insertKey = db.prepare('INSERT INTO api_keys (key, organization_id, seq) VALUES (?, ?, ?)');
  return {
    get(id) {
      const row = db.row('SELECT * FROM organizations WHERE id = ?', id);
      return row && toOrganization(row);
    },
    all() {
      return (db.prepare('SELECT * FROM organizations ORDER BY seq').all() as Row[]).map(toOrganization);
    },
    insert(org) {
      db.prepare(
        `INSERT INTO organizations (id, name, plan_name, storage_cap_images, monthly_analysis_cap, seq)
         VALUES (?, ?, ?, ?, ?, ?)`,
      ).run(
        org.id,
        clientText(org.name),
        org.plan.name,
        org.plan.storageCapImages,
        org.plan.monthlyAnalysisCap,
        nextSeq('organizations'),
      );
      for (const key of org.apiKeys) insertKey.run(key, org.id, nextSeq('api_keys'));
    },
    setPlan(id: string, plan: Plan) {
      db.prepare(
        'UPDATE organizations SET plan_name = ?, storage_cap_images = ?, monthly_analysis_cap = ? WHERE id = ?',
      ).run(plan.name, plan.storageCapImages, plan.monthlyAnalysisCap, id);
    },
    addKey(id, key) {
      insertKey.run(key, id, nextSeq('api_keys'));
    },
    keyTaken(key) {
      return db.prepare('SELECT 1 FROM api_keys WHERE key = ?').get(key) !== undefined;
    },
  };
}

function usageTable(db: Statements): UsageTable {
  return {
    analyses(orgId, month) {
      const [count] = db.column<number>(
        'SELECT count FROM analysis_usage WHERE organization_id = ? AND month = ?',
        orgId,
        month,
      );
      return count ?? 0;
    },
    setAnalyses(orgId, month, count) {
      db.prepare(
        `INSERT INTO analysis_usage (organization_id, month, count) VALUES (?, ?, ?)
         ON CONFLICT (organization_id, month) DO UPDATE SET count = excluded.count`,
      ).run(orgId, month, count);
    },
    clear(orgId) {
      db.prepare('DELETE FROM analysis_usage WHERE organization_id = ?').run(orgId);
    },
  };
}

function modelTable(db: Statements): ModelTable {
  const toModel = (r: Row): ModelRecord => ({
    id: r.id as string,
    name: fromClientText(r.name),
    version: fromClientText(r.version),
    description: fromClientText(r.description),
    scope: r.scope as ModelRecord['scope'],
    ...(r.organization_id === null ? {} : { organizationId: r.organization_id as string }),
    engine: JSON.parse(r.engine as string) as ModelRecord['engine'],
  });
  return {
    add(model) {
      db.prepare(
        `INSERT INTO models (id, organization_id, scope, name, version, description, engine)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        model.id,
        model.organizationId ?? null,
        model.scope,
        clientText(model.name),
        clientText(model.version),
        clientText(model.description),
        JSON.stringify(model.engine),
      );
    },
    get(id) {
      const row = db.row('SELECT * FROM models WHERE id = ?', id);
      return row && toModel(row);
    },
    listFor(org) {
      // Base models first, then by name in code-point order: the same on every machine whatever its
      // locale, and no ICU collator to build on a first request (15 ms of a cold start).
      const rows = db
        .prepare(
          "SELECT * FROM models WHERE scope = 'base' OR organization_id = ? ORDER BY scope <> 'base', name, id",
        )
        .all(org.id) as Row[];
      return rows.map(toModel);
    },
  };
}

function imageTable(db: Statements): ImageTable {
  const toImage = (r: Row): ImageRecord => ({
    id: r.id as string,
    organizationId: r.organization_id as string,
    name: fromClientText(r.name),
    imageType: 'TIFF',
    size: r.size as number,
    shape: r.shape === null ? null : (JSON.parse(r.shape as string) as number[]),
    uploadStatus: r.upload_status as UploadStatus,
    uploadError: r.upload_error as string | null,
    createdAt: r.created_at as string,
    processedAt: r.processed_at as string | null,
    metadata: JSON.parse(r.metadata as string) as Record<string, unknown>,
    folderId: r.folder_id === null ? null : fromClientText(r.folder_id),
    storageKey: r.storage_key as string,
    multipartUploadId: r.multipart_upload_id as string | null,
    derived: r.derived === null ? null : (JSON.parse(r.derived as string) as ImageRecord['derived']),
    conversionAttempts: r.conversion_attempts as number,
  });
  const upsertImage = `INSERT INTO images (id, organization_id, name, size, shape, upload_status, upload_error, created_at,
       processed_at, metadata, folder_id, storage_key, multipart_upload_id, derived, conversion_attempts)
     VALUES (@id, @organizationId, @name, @size, @shape, @uploadStatus, @uploadError, @createdAt,
       @processedAt, @metadata, @folderId, @storageKey, @multipartUploadId, @derived, @conversionAttempts)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name, size = excluded.size, shape = excluded.shape,
       upload_status = excluded.upload_status, upload_error = excluded.upload_error,
       processed_at = excluded.processed_at, metadata = excluded.metadata, folder_id = excluded.folder_id,
       multipart_upload_id = excluded.multipart_upload_id, derived = excluded.derived,
       conversion_attempts = excluded.conversion_attempts`;
  return {
    get(id) {
      const row = db.row('SELECT * FROM images WHERE id = ?', id);
      return row && toImage(row);
    },
    put(image) {
      db.runNamed(upsertImage, {
        ...image,
        name: clientText(image.name),
        folderId: image.folderId === null ? null : clientText(image.folderId),
        shape: image.shape === null ? null : JSON.stringify(image.shape),
        metadata: JSON.stringify(image.metadata),
        derived: image.derived === null ? null : JSON.stringify(image.derived),
      });
    },
    delete(id) {
      db.prepare('DELETE FROM images WHERE id = ?').run(id);
    },
    countOf(orgId) {
      return db.column<number>('SELECT count(*) FROM images WHERE organization_id = ?', orgId)[0];
    },
    idsOf(orgId) {
      return db.column('SELECT id FROM images WHERE organization_id = ?', orgId);
    },
    withStatus(status) {
      return (db.prepare('SELECT * FROM images WHERE upload_status = ?').all(status) as Row[]).map(toImage);
    },
    multipartUploadIds() {
      return new Set(
        db.column('SELECT multipart_upload_id FROM images WHERE multipart_upload_id IS NOT NULL'),
      );
    },
    storageKeys() {
      return new Set(db.column('SELECT storage_key FROM images'));
    },
  };
}

function predictionTable(db: Statements): PredictionTable {
  const toPrediction = (r: Row): PredictionRecord => ({
    id: r.id as string,
    organizationId: r.organization_id as string,
    imageId: r.image_id as string,
    modelId: r.model_id as string,
    status: r.status as PredictionStatus,
    createdAt: r.created_at as string,
    startedAt: r.started_at as string | null,
    finishedAt: r.finished_at as string | null,
    segmentationId: r.segmentation_id as string | null,
    cellCount: r.cell_count as number | null,
    error: r.error as string | null,
    runAttempts: r.run_attempts as number,
  });
  const upsertPrediction = `INSERT INTO predictions (id, organization_id, image_id, model_id, status, created_at, started_at,
       finished_at, segmentation_id, cell_count, error, run_attempts)
     VALUES (@id, @organizationId, @imageId, @modelId, @status, @createdAt, @startedAt, @finishedAt,
       @segmentationId, @cellCount, @error, @runAttempts)
     ON CONFLICT (id) DO UPDATE SET status = excluded.status, started_at = excluded.started_at,
       finished_at = excluded.finished_at, segmentation_id = excluded.segmentation_id,
       cell_count = excluded.cell_count, error = excluded.error, run_attempts = excluded.run_attempts`;
  return {
    get(id) {
      const row = db.row('SELECT * FROM predictions WHERE id = ?', id);
      return row && toPrediction(row);
    },
    put(prediction) {
      db.runNamed(upsertPrediction, prediction);
    },
    delete(id) {
      db.prepare('DELETE FROM predictions WHERE id = ?').run(id);
    },
    inFlightFor(orgId, imageId, modelId) {
      const row = db
        .prepare(
          `SELECT * FROM predictions WHERE image_id = ? AND model_id = ? AND status IN ('SUBMITTED', 'STARTED')
           AND organization_id = ? LIMIT 1`,
        )
        .get(imageId, modelId, orgId) as Row | undefined;
      return row && toPrediction(row);
    },
    withStatus(...statuses) {
      const marks = statuses.map(() => '?').join(', ');
      return (
        db.prepare(`SELECT * FROM predictions WHERE status IN (${marks})`).all(...statuses) as Row[]
      ).map(toPrediction);
    },
    idsOfImage(imageId) {
      return db.column('SELECT id FROM predictions WHERE image_id = ?', imageId);
    },
    idsOf(orgId) {
      return db.column('SELECT id FROM predictions WHERE organization_id = ?', orgId);
    },
  };
}

function segmentationTable(db: Statements): SegmentationTable {
  const toSegmentation = (r: Row): SegmentationRow => ({
    id: r.id as string,
    organizationId: r.organization_id as string,
    predictionId: r.prediction_id as string,
    imageId: r.image_id as string,
    imageName: fromClientText(r.image_name),
    modelId: r.model_id as string,
    modelName: fromClientText(r.model_name),
    source: r.source as string,
    cellCount: r.cell_count as number,
    roiIds: JSON.parse(r.roi_ids as string) as string[],
    hasPreview: r.has_preview === 1,
    createdAt: r.created_at as string,
  });
  return {
    get(id) {
      const row = db.row('SELECT * FROM segmentations WHERE id = ?', id);
      return row && toSegmentation(row);
    },
    put(s) {
      db.runNamed(
        `INSERT OR REPLACE INTO segmentations (id, organization_id, prediction_id, image_id, image_name,
           model_id, model_name, source, cell_count, roi_ids, has_preview, created_at)
         VALUES (@id, @organizationId, @predictionId, @imageId, @imageName, @modelId, @modelName, @source,
           @cellCount, @roiIds, @hasPreview, @createdAt)`,
        {
          ...s,
          imageName: clientText(s.imageName),
          modelName: clientText(s.modelName),
          roiIds: JSON.stringify(s.roiIds),
          hasPreview: s.hasPreview ? 1 : 0,
        },
      );
    },
    delete(id) {
      db.prepare('DELETE FROM segmentations WHERE id = ?').run(id);
    },
    idsOfImage(imageId) {
      return db.column('SELECT id FROM segmentations WHERE image_id = ?', imageId);
    },
    idsOf(orgId) {
      return db.column('SELECT id FROM segmentations WHERE organization_id = ?', orgId);
    },
    allIds() {
      return new Set(db.column('SELECT id FROM segmentations'));
    },
  };
}

function shareTable(db: Statements): ShareTable {
  const toShare = (r: Row): ShareRecord => ({
    id: r.id as string,
    organizationId: r.organization_id as string,
    segmentationId: r.segmentation_id as string,
    token: r.token as string,
    viewCount: r.view_count as number,
    lastViewedAt: r.last_viewed_at as string | null,
    createdAt: r.created_at as string,
    revokedAt: r.revoked_at as string | null,
  });
  const one = (sql: string, ...args: unknown[]) => {
    const row = db.row(sql, ...args);
    return row && toShare(row);
  };
  return {
    get: (id) => one('SELECT * FROM shares WHERE id = ?', id),
    byToken: (token) => one('SELECT * FROM shares WHERE token = ?', token),
    liveFor: (segmentationId) =>
      one('SELECT * FROM shares WHERE segmentation_id = ? AND revoked_at IS NULL LIMIT 1', segmentationId),
    put(share) {
      db.runNamed(
        `INSERT INTO shares (id, organization_id, segmentation_id, token, view_count, last_viewed_at, created_at,
           revoked_at)
         VALUES (@id, @organizationId, @segmentationId, @token, @viewCount, @lastViewedAt, @createdAt, @revokedAt)
         ON CONFLICT (id) DO UPDATE SET view_count = excluded.view_count,
           last_viewed_at = excluded.last_viewed_at, revoked_at = excluded.revoked_at`,
        share,
      );
    },
    delete(id) {
      db.prepare('DELETE FROM shares WHERE id = ?').run(id);
    },
    idsOfSegmentation(segmentationId) {
      return db.column('SELECT id FROM shares WHERE segmentation_id = ?', segmentationId);
    },
    idsOf(orgId) {
      return db.column('SELECT id FROM shares WHERE organization_id = ?', orgId);
    },
  };
}

function settingsTable(db: Statements): SettingsTable {
  return {
    get(key) {
      return db.column('SELECT value FROM settings WHERE key = ?', key)[0];
    },
    set(key, value) {
      db.prepare(
        'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      ).run(key, value);
    },
  };
}
