import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import JSZip from 'jszip';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstantMock } from '../test-support/instant-mock.js';
import type { RunningMock } from '../mock-server/server.js';
import { createClient, type Client } from './generated/client/client/index.js';
import * as sdk from './generated/client/index.js';

/**
 * The TypeScript client that @hey-api/openapi-ts generates from the public document
 * (openapi/generated/client, kept fresh by `npm run types:check`) runs the whole round trip against
 * the mock through its typed calls alone: no request in this file is written by hand.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..');
const seed = JSON.parse(readFileSync(path.join(repoRoot, 'fixtures', 'seed.json'), 'utf8')) as {
  organizations: Array<{ api_keys: string[] }>;
};
const cellsTif = readFileSync(path.join(repoRoot, 'fixtures', 'samples', 'cells.tif'));

let mock: RunningMock;
let client: Client;

beforeAll(async () => {
  mock = await startInstantMock();
  client = createClient({
    baseUrl: mock.url,
    auth: () => seed.organizations[0].api_keys[0],
  });
});
afterAll(() => mock?.close());

/** Options of every call: the client, and errors thrown (so `data` is typed as the success body). */
const calls = () => ({ client, throwOnError: true as const });

describe('a client generated from the public document', () => {
  it('has only the public operations: no control plane, no internal endpoints', () => {
    const operations = Object.keys(sdk).filter(
      (name) => typeof (sdk as Record<string, unknown>)[name] === 'function',
    );
    expect(operations).toContain('uploadImage');
    expect(
      operations.filter((name) => /^mock|^createApiKey$|^trainModel$|^listOrganizations$/.test(name)),
    ).toEqual([]);
  });

  it('uploads cells.tif as multipart, predicts, polls, downloads every export, shares, reads and revokes the share', async () => {
    const uploaded = await sdk.uploadImage({
      ...calls(),
      body: { file: new File([cellsTif], 'cells.tif', { type: 'image/tiff' }) },
    });
    const image = uploaded.data.image;
    expect(image.upload_status).toBe('ready');
    expect(uploaded.data.upload).toBeNull();

    const models = await sdk.listModels(calls());
    const model = models.data[0];
    const ack = await sdk.createPrediction({ ...calls(), body: { image_id: image.id, model_id: model.id } });

    let prediction = (
      await sdk.getPrediction({ ...calls(), path: { prediction_id: ack.data.prediction_id } })
    ).data;
    for (let polls = 0; !['COMPLETED', 'FAILED'].includes(prediction.status) && polls < 2000; polls++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      prediction = (await sdk.getPrediction({ ...calls(), path: { prediction_id: ack.data.prediction_id } }))
        .data;
    }
    // The type narrows on the status: a COMPLETED prediction's segmentation_id is a string, no cast.
    if (prediction.status !== 'COMPLETED') throw new Error(`the prediction ended ${prediction.status}`);
    const segmentationId: string = prediction.segmentation_id;

    const overlay = await sdk.exportOverlayPng({ ...calls(), path: { segmentation_id: segmentationId } });
    expect(overlay.data).toBeInstanceOf(Blob);
    const png = await sharp(Buffer.from(await overlay.data.arrayBuffer())).metadata();
    expect(png.format).toBe('png');
    expect([png.height, png.width]).toEqual(image.shape?.slice(-2));

    const rois = await sdk.exportRoisZip({ ...calls(), path: { segmentation_id: segmentationId } });
    expect(rois.data).toBeInstanceOf(Blob);
    const zip = await JSZip.loadAsync(await rois.data.arrayBuffer());
    const entries = Object.keys(zip.files);
    expect(entries.length).toBe(prediction.cell_count);
    const first = await zip.files[entries[0]].async('uint8array');
    expect(Buffer.from(first.subarray(0, 4)).toString('latin1')).toBe('Iout');

    const csv = await sdk.exportMeasurementsCsv({ ...calls(), path: { segmentation_id: segmentationId } });
    const rows = csv.data.trim().split('\n');
    expect(rows[0]).toMatch(/^image_name,/);
    expect(rows.length - 1).toBe(prediction.cell_count);

    const geojson = await sdk.exportRoisGeojson({ ...calls(), path: { segmentation_id: segmentationId } });
    expect(geojson.data.features.length).toBe(prediction.cell_count);

    const share = await sdk.createShare({ ...calls(), body: { segmentation_id: segmentationId } });
    expect(share.data.segmentation_id).toBe(segmentationId);
    expect(share.data.url).toMatch(/\/share\/[^/]+$/);
    const read = await sdk.getShare({ ...calls(), path: { share_id: share.data.id } });
    expect(read.data.view_count).toBe(0);
    const revoked = await sdk.revokeShare({ ...calls(), path: { share_id: share.data.id } });
    expect(revoked.data.revoked_at).toBeTruthy();
  });
});
