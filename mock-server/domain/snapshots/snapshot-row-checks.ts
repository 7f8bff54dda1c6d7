/**
 * The rows of a snapshot being loaded, parsed and checked before anything is written: every field
 * a table needs with its type, ids that can name a folder, references that point at rows of the
 * same snapshot. A row that fails names its file, its line and its field.
 */
import { MAX_REMOTE_TIMEOUT_MS, remoteTimeoutProblem } from '../../engines/models/remote-model.js';
import { thresholdParamsProblem } from '../../engines/segmentation/threshold-segmenter.js';
import type { PredictionRecord, SegmentationRow } from '../predictions/prediction-record.js';
import {
  COUNT_MAX,
  isCount,
  isWholeUpTo,
  SnapshotRefused,
  rowsEntryName,
  type SnapshotTable,
} from './snapshot-format.js';
import type { SnapshotRows } from './snapshot-rows.js';

/**
 * A field's JSON type (with '?': or null), or the strings it may be. `count` is a whole number the
 * tables keep in a 32-bit integer column, `bytes` one they keep in a 64-bit one: PostgreSQL refuses
 * a fraction or a value past the column, which would fail the load's transaction instead of naming
 * the field.
 */
type Kind =
  | `${'string' | 'number' | 'object' | 'array' | 'count' | 'bytes'}${'' | '?'}`
  | 'boolean'
  | readonly string[];

const WHOLE: Record<string, number> = { count: COUNT_MAX, bytes: Number.MAX_SAFE_INTEGER };

/** Whether a value is of a field's kind (its '?' taken off). */
function isKind(value: unknown, wanted: string): boolean {
  const bound = WHOLE[wanted];
  return bound === undefined ? kindOf(value) === wanted : isWholeUpTo(value, bound);
}

const FIELDS: Record<SnapshotTable, Record<string, Kind>> = {
  organizations: { id: 'string', name: 'string', plan: 'object', apiKeys: 'array' },
  usage: { organizationId: 'string', month: 'string', count: 'count' },
  models: {
    id: 'string',
    name: 'string',
    version: 'string',
    description: 'string',
    scope: ['base', 'custom'],
    engine: 'object',
  },
  images: {
    id: 'string',
    organizationId: 'string',
    name: 'string',
    imageType: ['TIFF'],
    size: 'bytes',
    shape: 'array?',
    uploadStatus: ['uploading', 'processing', 'ready', 'failed'],
    uploadError: 'string?',
    createdAt: 'string',
    processedAt: 'string?',
    metadata: 'object',
    folderId: 'string?',
    storageKey: 'string',
    multipartUploadId: 'string?',
    conversionAttempts: 'count',
    derived: 'object?',
  },
  predictions: {
    id: 'string',
    organizationId: 'string',
    imageId: 'string',
    modelId: 'string',
    status: ['SUBMITTED', 'STARTED', 'COMPLETED', 'FAILED'],
    createdAt: 'string',
    startedAt: 'string?',
    finishedAt: 'string?',
    segmentationId: 'string?',
    cellCount: 'count?',
    error: 'string?',
    runAttempts: 'count',
  },
  segmentations: {
    id: 'string',
    organizationId: 'string',
    predictionId: 'string',
    imageId: 'string',
    imageName: 'string',
    modelId: 'string',
    modelName: 'string',
    source: 'string',
    cellCount: 'count',
    roiIds: 'array',
    hasPreview: 'boolean',
    createdAt: 'string',
  },
  shares: {
    id: 'string',
    organizationId: 'string',
    segmentationId: 'string',
    token: 'string',
    viewCount: 'count',
    lastViewedAt: 'string?',
    createdAt: 'string',
    revokedAt: 'string?',
  },
  settings: { key: 'string', value: 'string' },
};

/** Ids that become folder names (derived/<id>, segmentations/<id>) and parts of archive names. */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
/** Object keys: slash-separated plain segments, as the mock makes them (objects/<uuid>/original.tif). */
const SAFE_KEY = /^(?:[A-Za-z0-9][A-Za-z0-9._-]{0,127}\/){0,7}[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** A JSON value's type as the checks name it: 'object', 'array', 'null', 'string', ... */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function checkRow(table: SnapshotTable, line: number, value: unknown): void {
  checkFields(table, `${rowsEntryName(table)} line ${line}`, value);
}

/** A row of `table` wherever it is carried; `where` names the place in the archive. */
export function checkFields(table: SnapshotTable, where: string, value: unknown): void {
  if (kindOf(value) !== 'object') throw new SnapshotRefused(`${where} is not a JSON object`);
  const row = value as Record<string, unknown>;
  for (const [field, kind] of Object.entries(FIELDS[table])) {
    if (typeof kind !== 'string') {
      if (kind.includes(row[field] as string)) continue;
      throw new SnapshotRefused(`${where}: field "${field}" must be one of ${kind.join(', ')}`);
    }
    const optional = kind.endsWith('?');
    const value = row[field];
    const wanted = optional ? kind.slice(0, -1) : kind;
    const actual = kindOf(value);
    if (isKind(value, wanted) || (optional && actual === 'null')) continue;
    const bound = WHOLE[wanted];
    const named = bound === undefined ? wanted : `a whole number from 0 to ${bound}`;
    throw new SnapshotRefused(
      `${where}: field "${field}" must be ${optional ? `${named} or null` : named}, got ${actual === 'number' ? String(value) : actual}`,
    );
  }
  if (table === 'organizations') checkOrganization(where, row);
  if (table === 'models') checkEngine(where, row.engine as Record<string, unknown>);
  // Only these ids name folders (derived/<id>, segmentations/<id>); others are compared, never used as paths.
  if ((table === 'images' || table === 'segmentations') && !SAFE_ID.test(row.id as string))
    throw new SnapshotRefused(
      `${where}: id ${JSON.stringify(row.id)} is not a plain id (letters, digits, - and _)`,
    );
}

/** A model's engine as a model can run on it (the control plane refuses the same when a model is added). */
function checkEngine(where: string, engine: Record<string, unknown>): void {
  const problem =
    engine.kind === 'threshold'
      ? thresholdParamsProblem(engine.params)
      : engine.kind !== 'remote'
        ? 'kind must be threshold or remote'
        : typeof engine.url !== 'string' ||
            remoteTimeoutProblem(engine.timeoutMs) !== undefined ||
            kindOf(engine.params) !== 'object'
          ? `a remote engine needs url, timeoutMs (a whole number from 1 to ${MAX_REMOTE_TIMEOUT_MS}) and params (an object)`
          : undefined;
  if (problem) throw new SnapshotRefused(`${where}: field "engine": ${problem}`);
}

function checkOrganization(where: string, row: Record<string, unknown>): void {
  const plan = row.plan as Record<string, unknown>;
  if (typeof plan.name !== 'string' || !isCount(plan.storageCapImages) || !isCount(plan.monthlyAnalysisCap))
    throw new SnapshotRefused(
      `${where}: plan needs name, storageCapImages and monthlyAnalysisCap (whole numbers from 0 to ${WHOLE.count})`,
    );
  for (const key of row.apiKeys as unknown[]) {
    const k = key as Record<string, unknown> | null;
    if (
      !k ||
      typeof k.id !== 'string' ||
      typeof k.prefix !== 'string' ||
      !/^[0-9a-f]{64}$/.test(String(k.hash))
    )
      throw new SnapshotRefused(`${where}: each of apiKeys needs id, prefix and a SHA-256 hash`);
  }
}

/** Parses one table's JSON lines; `text` is the whole file. */
export function parseTableRows(table: SnapshotTable, text: string, expected: number): unknown[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const rows = lines.map((line, index) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new SnapshotRefused(`${rowsEntryName(table)} line ${index + 1} is not JSON`);
    }
    checkRow(table, index + 1, value);
    return value;
  });
  if (rows.length !== expected)
    throw new SnapshotRefused(
      `${rowsEntryName(table)} holds ${rows.length} rows; the manifest says ${expected}`,
    );
  return rows;
}

/** Every reference points at a row of the snapshot, and nothing is there twice. */
export function checkReferences(rows: SnapshotRows): void {
  const ids = (list: Array<{ id: string }>, table: SnapshotTable) => {
    const set = new Set<string>();
    for (const { id } of list) {
      if (set.has(id)) throw new SnapshotRefused(`${rowsEntryName(table)} holds id "${id}" twice`);
      set.add(id);
    }
    return set;
  };
  const orgs = ids(rows.organizations, 'organizations');
  const models = ids(rows.models, 'models');
  const images = ids(rows.images, 'images');
  const predictions = ids(rows.predictions, 'predictions');
  const segmentations = ids(rows.segmentations, 'segmentations');
  ids(rows.shares, 'shares');
  const refer = (table: SnapshotTable, row: object, field: string, set: Set<string>, nullable = false) => {
    const value = (row as Record<string, unknown>)[field];
    if (nullable && value === null) return;
    if (!set.has(value as string))
      throw new SnapshotRefused(
        `${rowsEntryName(table)}: ${field} ${JSON.stringify(value)} is not a row of the snapshot`,
      );
  };
  for (const u of rows.usage) refer('usage', u, 'organizationId', orgs);
  for (const m of rows.models) if (m.scope === 'custom') refer('models', m, 'organizationId', orgs);
  const keys = new Set<string>();
  for (const image of rows.images) {
    refer('images', image, 'organizationId', orgs);
    if (keys.has(image.storageKey) || !SAFE_KEY.test(image.storageKey) || image.storageKey.includes('..'))
      throw new SnapshotRefused(
        `${rowsEntryName('images')}: storageKey ${JSON.stringify(image.storageKey)} is not a plain, unique key`,
      );
    keys.add(image.storageKey);
  }
  for (const p of rows.predictions) {
    refer('predictions', p, 'organizationId', orgs);
    refer('predictions', p, 'imageId', images);
    refer('predictions', p, 'modelId', models);
    refer('predictions', p, 'segmentationId', segmentations, true);
  }
  for (const s of rows.segmentations) {
    refer('segmentations', s, 'organizationId', orgs);
    refer('segmentations', s, 'predictionId', predictions);
  }
  for (const share of rows.shares) {
    refer('shares', share, 'organizationId', orgs);
    refer('shares', share, 'segmentationId', segmentations);
  }
  checkOwners(rows);
  const tokens = new Set(rows.shares.map((s) => s.token));
  if (tokens.size !== rows.shares.length)
    throw new SnapshotRefused(`${rowsEntryName('shares')} holds a token twice`);
  const keyHashes = rows.organizations.flatMap((o) => o.apiKeys.map((k) => k.hash));
  if (new Set(keyHashes).size !== keyHashes.length)
    throw new SnapshotRefused(`${rowsEntryName('organizations')} holds an API key twice`);
  checkOnlyOnce(rows);
}

/**
 * A row of one organization points only at rows of the same organization, and a segmentation is
 * of its prediction's image: every read is confined to the caller's organization, so a
 * segmentation of Acme's prediction that says it is Beta's would leave Acme's exports 404 and give
 * Beta Acme's data.
 */
function checkOwners(rows: SnapshotRows): void {
  const owners = (list: Array<{ id: string; organizationId: string }>) =>
    new Map(list.map((row) => [row.id, row.organizationId]));
  const [images, segmentations] = [rows.images, rows.segmentations].map(owners);
  const same = (table: SnapshotTable, row: object, field: string, of: Map<string, string>) => {
    const { organizationId, [field]: value } = row as Record<string, unknown>;
    if (value !== null && of.get(value as string) !== organizationId)
      throw new SnapshotRefused(
        `${rowsEntryName(table)}: ${field} ${JSON.stringify(value)} is a row of another organization than ${JSON.stringify(organizationId)}`,
      );
  };
  for (const p of rows.predictions) {
    same('predictions', p, 'imageId', images);
    same('predictions', p, 'segmentationId', segmentations);
  }
  const byId = new Map(rows.predictions.map((p) => [p.id, p]));
  for (const s of rows.segmentations) {
    const problem = segmentationOwnerProblem(s, byId.get(s.predictionId));
    if (problem) throw new SnapshotRefused(`${rowsEntryName('segmentations')}: ${problem}`);
  }
  for (const share of rows.shares) same('shares', share, 'segmentationId', segmentations);
}

/** What is wrong with a segmentation as a segmentation of `prediction` (its own, by predictionId), if anything. */
export function segmentationOwnerProblem(
  segmentation: SegmentationRow,
  prediction: Pick<PredictionRecord, 'organizationId' | 'imageId'> | undefined,
): string | undefined {
  const id = JSON.stringify(segmentation.id);
  if (!prediction) return `segmentation ${id}: its prediction is not a row of the snapshot`;
  if (prediction.organizationId !== segmentation.organizationId)
    return `segmentation ${id} is of organization ${JSON.stringify(segmentation.organizationId)}, its prediction of ${JSON.stringify(prediction.organizationId)}`;
  if (prediction.imageId !== segmentation.imageId)
    return `segmentation ${id} is of image ${JSON.stringify(segmentation.imageId)}, its prediction of ${JSON.stringify(prediction.imageId)}`;
  return undefined;
}

/**
 * What the tables keep unique beyond a row's own id: a key's id, one identical prediction in
 * flight, one live share per segmentation. A load writes the rows in one transaction, so a
 * snapshot holding a pair would fail there, on the database's constraint, instead of here by name.
 */
function checkOnlyOnce(rows: SnapshotRows): void {
  const once = (table: SnapshotTable, what: (key: string) => string, keys: string[]) => {
    const seen = new Set<string>();
    for (const key of keys) {
      if (seen.has(key)) throw new SnapshotRefused(`${rowsEntryName(table)} holds ${what(key)} twice`);
      seen.add(key);
    }
  };
  once(
    'organizations',
    (id) => `API key id ${JSON.stringify(id)}`,
    rows.organizations.flatMap((o) => o.apiKeys.map((k) => k.id)),
  );
  once(
    'predictions',
    (key) => `a prediction in flight for ${key}`,
    rows.predictions
      .filter((p) => p.status === 'SUBMITTED' || p.status === 'STARTED')
      .map((p) => `image ${p.imageId} and model ${p.modelId} of organization ${p.organizationId}`),
  );
  once(
    'shares',
    (id) => `a live share of segmentation ${id}`,
    rows.shares.filter((s) => s.revokedAt === null).map((s) => s.segmentationId),
  );
}
