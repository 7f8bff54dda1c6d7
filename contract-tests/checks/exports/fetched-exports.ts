import { expect } from 'vitest';
import type { ApiResponse } from '../../harness/api-client.js';
import type { CheckContext } from '../../harness/check.js';
import { csvRecords } from '../../harness/file-formats.js';
import { completedSegmentation } from '../../harness/flows.js';
import { decodeRoiZip, type DecodedRoi } from '../../harness/imagej-roi.js';
import { modelFor } from '../../harness/model-choice.js';
import { segmentationShortcomings } from '../../harness/sample-quality.js';
import type { MeaningfulSample } from '../../harness/sample-images.js';
import { expectStatus } from '../../harness/steps.js';
import type { FeatureCollection, Image, Model } from '../../../openapi/generated/client/types.gen.js';

export type Feature = FeatureCollection['features'][number];

/** A CSV row's numeric columns as numbers. */
export type MeasuredRow = ReturnType<typeof numbers>;

/** The four exports of one segmentation of a meaningful sample, and the image they describe. */
export interface FetchedExports {
  sample: MeaningfulSample;
  model: Model;
  segmentationId: string;
  cellCount: number;
  params: { segmentation_id: string };
  image: ApiResponse<Image>;
  csv: ApiResponse<Buffer>;
  header: string[];
  rows: Array<Record<string, string>>;
  measured: MeasuredRow[];
  geo: ApiResponse<FeatureCollection>;
  features: Feature[];
  zip: ApiResponse<Buffer>;
  rois: DecodedRoi[];
  png: ApiResponse<Buffer>;
}

/**
 * Segments the sample and fetches its four exports. SMP-01 is judged as soon as the CSV is read:
 * on a segmentation too poor to check exports on, the check stops there.
 */
export async function fetchExports(ctx: CheckContext, sample: MeaningfulSample): Promise<FetchedExports> {
  const model = await modelFor(ctx.api, { look: sample.look, keepsBorderCells: sample.borderCells > 0 });
  const { segmentationId, cellCount, imageId } = await completedSegmentation(
    ctx,
    sample.bytes,
    ctx.api,
    model.id,
  );
  const params = { segmentation_id: segmentationId };

  const csv = await ctx.api.call<Buffer>('exportMeasurementsCsv', { params });
  expectStatus(csv, 200);
  const { header, rows } = csvRecords(csv.bytes);
  const measured = rows.map(numbers);
  const gate = segmentationShortcomings(measured, sample);
  await ctx.verify('SMP-01', () => {
    expect(gate, `model ${model.name}: the sample's segmentation is too poor to check exports on`).toEqual(
      [],
    );
  });
  if (gate.length) throw new Error(`SMP-01: ${gate.join('; ')} (model ${model.name})`);

  const geo = await ctx.api.call<FeatureCollection>('exportRoisGeojson', { params });
  expectStatus(geo, 200);
  const features = (
    typeof geo.body === 'object' && !Buffer.isBuffer(geo.body)
      ? geo.body
      : JSON.parse(geo.bytes.toString('utf8'))
  ).features as Feature[];
  const zip = await ctx.api.call<Buffer>('exportRoisZip', { params });
  expectStatus(zip, 200);
  const rois = await decodeRoiZip(
    (await binaryBody(ctx, 'exportRoisZip', params, zip.bytes)).bytes,
    ctx.target.maxBodyBytes,
  );
  const png = await ctx.api.call<Buffer>('exportOverlayPng', {
    params: { ...params },
    query: { fill_opacity: 0 },
  });
  expectStatus(png, 200);
  const image = await ctx.api.call<Image>('getImage', { params: { image_id: imageId } });
  expectStatus(image, 200);
  return {
    sample,
    model,
    segmentationId,
    cellCount,
    params,
    image,
    csv,
    header,
    rows,
    measured,
    geo,
    features,
    zip,
    rois,
    png,
  };
}

/**
 * Prism 5.14's proxy re-encodes binary bodies as text; through --via-prism, Prism judges the
 * response above and the bytes are read again straight from the target.
 */
export async function binaryBody(
  ctx: CheckContext,
  operationId: string,
  params: Record<string, string>,
  bytes: Buffer,
) {
  if (!ctx.target.viaPrism) return { bytes };
  return ctx.api.call<Buffer>(operationId, { params, baseUrl: ctx.target.directBaseUrl });
}

/** The CSV's numeric columns as numbers. */
function numbers(row: Record<string, string>) {
  const n = (name: string) => Number(row[name]);
  return {
    roi_index: n('roi_index'),
    area_px: n('area_px'),
    perimeter_px: n('perimeter_px'),
    centroid_x: n('centroid_x'),
    centroid_y: n('centroid_y'),
    bbox_x: n('bbox_x'),
    bbox_y: n('bbox_y'),
    bbox_w: n('bbox_w'),
    bbox_h: n('bbox_h'),
    confluency: n('confluency'),
    image_width: n('image_width'),
    image_height: n('image_height'),
  };
}
