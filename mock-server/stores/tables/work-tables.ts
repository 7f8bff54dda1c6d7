/**
 * The tables of an organization's work, written once for both engines: images, predictions,
 * segmentations and shares (the StateStore port's tables, domain/state.ts; schema in migrations.ts).
 */
import type { ImageRecord } from '../../domain/images/image-record.js';
import type { PredictionRecord, SegmentationRow } from '../../domain/predictions/prediction-record.js';
import type { ShareRecord } from '../../domain/shares/share-record.js';
import type { ImageTable, PredictionTable, SegmentationTable, ShareTable } from '../../domain/state.js';
import { CLIENT_TEXT, FLAG, JSON_TEXT, NUMBER, recordTable } from './columns.js';
import { column, first, marks, records, rows, type Works } from './work.js';

const images = recordTable<ImageRecord>(
  'images',
  'id organizationId name imageType size shape uploadStatus uploadError createdAt processedAt metadata ' +
    'folderId storageKey multipartUploadId derived conversionAttempts',
  {
    name: CLIENT_TEXT,
    imageType: { read: () => 'TIFF' },
    size: NUMBER,
    shape: JSON_TEXT,
    metadata: JSON_TEXT,
    folderId: CLIENT_TEXT,
    derived: JSON_TEXT,
  },
  ['organization_id', 'created_at', 'storage_key'],
);
const toImage = images.read;

/** A count or sum as a number: PostgreSQL answers its bigints as strings. */
const count = (values: unknown[]): number => Number(values[0] ?? 0);

export const imageTable: Works<ImageTable> = {
  ...images.methods,
  *countOf(orgId) {
    return count(yield* column('SELECT count(*) FROM images WHERE organization_id = ?', orgId));
  },
  *footprintOf(orgId) {
    const [row] = yield* rows(
      `SELECT coalesce(sum(size), 0) AS bytes,
              count(CASE WHEN upload_status = 'uploading' AND multipart_upload_id IS NOT NULL THEN 1 END)
                AS open_uploads
       FROM images WHERE organization_id = ?`,
      orgId,
    );
    return { bytes: Number(row.bytes), openUploads: Number(row.open_uploads) };
  },
  idsOf: (orgId) => column('SELECT id FROM images WHERE organization_id = ?', orgId),
  withStatus: (status) => records('SELECT * FROM images WHERE upload_status = ?', toImage, status),
  pageAfter: (afterId, limit) =>
    records('SELECT * FROM images WHERE id > ? ORDER BY id LIMIT ?', toImage, afterId ?? '', limit),
  *multipartUploadIds() {
    return new Set(
      yield* column('SELECT multipart_upload_id FROM images WHERE multipart_upload_id IS NOT NULL'),
    );
  },
  *storageKeys() {
    return new Set(yield* column('SELECT storage_key FROM images'));
  },
};

const predictions = recordTable<PredictionRecord>(
  'predictions',
  'id organizationId imageId modelId status createdAt startedAt finishedAt segmentationId cellCount error runAttempts',
  {},
  ['organization_id', 'image_id', 'model_id', 'created_at'],
);
const toPrediction = predictions.read;

export const predictionTable: Works<PredictionTable> = {
  ...predictions.methods,
  inFlightFor: (orgId, imageId, modelId) =>
    first(
      `SELECT * FROM predictions WHERE image_id = ? AND model_id = ? AND status IN ('SUBMITTED', 'STARTED')
       AND organization_id = ? LIMIT 1`,
      toPrediction,
      imageId,
      modelId,
      orgId,
    ),
  withStatus: (...statuses) =>
    records(`SELECT * FROM predictions WHERE status IN (${marks(statuses)})`, toPrediction, ...statuses),
  *inFlightCountOf(orgId) {
    return count(
      yield* column(
        "SELECT count(*) FROM predictions WHERE organization_id = ? AND status IN ('SUBMITTED', 'STARTED')",
        orgId,
      ),
    );
  },
  idsOfImage: (imageId) => column('SELECT id FROM predictions WHERE image_id = ?', imageId),
  idsOf: (orgId) => column('SELECT id FROM predictions WHERE organization_id = ?', orgId),
};

const segmentations = recordTable<SegmentationRow>(
  'segmentations',
  'id organizationId predictionId imageId imageName modelId modelName source cellCount roiIds hasPreview createdAt',
  { imageName: CLIENT_TEXT, modelName: CLIENT_TEXT, roiIds: JSON_TEXT, hasPreview: FLAG },
);

export const segmentationTable: Works<SegmentationTable> = {
  ...segmentations.methods,
  idsOfImage: (imageId) => column('SELECT id FROM segmentations WHERE image_id = ?', imageId),
  idsOf: (orgId) => column('SELECT id FROM segmentations WHERE organization_id = ?', orgId),
  idsAfter: (afterId, limit) =>
    column('SELECT id FROM segmentations WHERE id > ? ORDER BY id LIMIT ?', afterId ?? '', limit),
};

const shares = recordTable<ShareRecord>(
  'shares',
  'id organizationId segmentationId token viewCount lastViewedAt createdAt revokedAt',
  {},
  ['organization_id', 'segmentation_id', 'token', 'created_at'],
);
const toShare = shares.read;

export const shareTable: Works<ShareTable> = {
  ...shares.methods,
  byToken: (token) => first('SELECT * FROM shares WHERE token = ?', toShare, token),
  liveFor: (segmentationId) =>
    first(
      'SELECT * FROM shares WHERE segmentation_id = ? AND revoked_at IS NULL LIMIT 1',
      toShare,
      segmentationId,
    ),
  idsOfSegmentation: (segmentationId) =>
    column('SELECT id FROM shares WHERE segmentation_id = ?', segmentationId),
  idsOf: (orgId) => column('SELECT id FROM shares WHERE organization_id = ?', orgId),
};
