/**
 * Advisory clauses (clauses.ts): what a client named comes back safe to open. An image's name is
 * the client's text and travels into a spreadsheet (measurements.csv), a browser (the share page),
 * a download dialog (Content-Disposition) and an unzip tool (rois.zip). Reported "safe" or "at
 * risk" on any target; never fails the run.
 */
import { expect } from 'vitest';
import { check, type CheckContext } from '../harness/check.js';
import { BlockedByStep, expectStatus, need } from '../harness/steps.js';
import { csvRecords } from '../harness/file-formats.js';
import { pollImage, pollPrediction, putParts, trackImage, trackShare } from '../harness/flows.js';
import { hostileName, MARKUP } from '../harness/hostile-names.js';
import { decodeRoiZip } from '../harness/imagej-roi.js';
import { fittingModelId } from '../harness/model-choice.js';
import { presetTiff } from '../harness/sample-images.js';
import type { PredictionAck, Share, UploadResponse } from '../../openapi/generated/client/types.gen.js';

/** Cells a spreadsheet runs as a formula start with one of these (OWASP, CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A completed segmentation of an image named exactly `name` (a resumable upload: its JSON body
 * carries the name byte for byte, where a multipart file name would be percent-escaped on the way).
 */
async function segmentationNamed(ctx: CheckContext, name: string): Promise<string> {
  const bytes = presetTiff().bytes;
  const opened = await ctx.api.call<UploadResponse>('uploadImage', { body: { name, size: bytes.length } });
  need(opened, 200, ['image.id', 'upload.urls']);
  const imageId = opened.body.image.id;
  trackImage(ctx, ctx.api, imageId);
  await putParts(ctx.api, opened.body.upload!, bytes);
  const complete = await ctx.api.call('completeUpload', { params: { image_id: imageId } });
  need(complete, 202);
  expect(
    (await pollImage(ctx, imageId)).upload_status,
    'GET /upload/{id} after complete: upload_status',
  ).toBe('ready');
  const ack = await ctx.api.call<PredictionAck>('createPrediction', {
    body: { image_id: imageId, model_id: await fittingModelId(ctx.api) },
  });
  need(ack, 200, ['prediction_id']);
  const done = await pollPrediction(ctx, ack.body.prediction_id);
  if (done.status !== 'COMPLETED')
    throw new BlockedByStep(
      {
        key: `getPrediction ended ${done.status}`,
        text: `GET /api/v1/predict/{prediction_id} (getPrediction) ended ${done.status}`,
      },
      ', expected COMPLETED',
    );
  return done.segmentation_id!;
}

check(
  'an image name that starts a formula, or holds markup, quotes and path characters, comes back safe to open',
  { clauses: ['SEC-01', 'SEC-02'] },
  async (ctx) => {
    // The run's prefix stays in each name (it marks what the suite made) but not first: a formula
    // must start the name for the clause to mean anything.
    const formula = `=1+1 ${ctx.target.namePrefix}.tif`;
    const hostile = hostileName(ctx.target.namePrefix);

    const formulaSegmentation = await segmentationNamed(ctx, formula);
    const csv = await ctx.api.call<Buffer>('exportMeasurementsCsv', {
      params: { segmentation_id: formulaSegmentation },
    });
    need(csv, 200);
    await ctx.verify('SEC-01', () => {
      const cells = csvRecords(csv.bytes).rows.map((row) => row.image_name);
      expect(cells.length, 'measurements.csv has rows to judge').toBeGreaterThan(0);
      const executable = cells.filter((cell) => FORMULA_START.test(cell));
      expect(
        executable.length,
        `GET measurements.csv: ${executable.length} of ${cells.length} image_name cells a spreadsheet would run as a formula, e.g. ${JSON.stringify(executable[0])} (image named ${JSON.stringify(formula)})`,
      ).toBe(0);
    });

    const segmentationId = await segmentationNamed(ctx, hostile);
    const params = { segmentation_id: segmentationId };
    const exports = {
      'measurements.csv': await ctx.api.call<Buffer>('exportMeasurementsCsv', { params }),
      'rois.geojson': await ctx.api.call<Buffer>('exportRoisGeojson', { params }),
      'rois.zip': await ctx.api.call<Buffer>('exportRoisZip', { params }),
      'overlay.png': await ctx.api.call<Buffer>('exportOverlayPng', { params }),
    };
    const share = await ctx.api.call<Share>('createShare', {
      body: { segmentation_id: segmentationId },
    });
    need(share, 200, ['id']);
    trackShare(ctx, share.body.id, segmentationId);
    const page = share.body.url ? await ctx.api.raw('GET', share.body.url, { key: null }) : undefined;
    const html = page?.status === 200 ? await page.text() : '';

    await ctx.verify('SEC-02', async () => {
      for (const [name, response] of Object.entries(exports)) {
        expectStatus(response, 200, `GET ${name}`);
        expect(response.headers.get('set-cookie'), `${name}: the name split a header`).toBeNull();
        const disposition = response.headers.get('content-disposition') ?? '';
        // One header, one quoted file name with nothing unescaped in it, no path of its own.
        expect(disposition, `${name} Content-Disposition`).toMatch(
          /^attachment;\s*filename="(?:[^"\\\r\n]|\\.)*"(?:;\s*filename\*=UTF-8''[A-Za-z0-9!#$&+.^_`|~%-]+)?$/,
        );
        const quoted = /filename="((?:[^"\\]|\\.)*)"/.exec(disposition)?.[1] ?? '';
        expect(quoted, `${name} file name in Content-Disposition holds a path`).not.toMatch(/[/\\]/);
      }
      const entries = (await decodeRoiZip(exports['rois.zip'].bytes, ctx.target.maxBodyBytes)).map(
        (roi) => roi.entryName,
      );
      expect(entries.length, 'rois.zip has entries to judge').toBeGreaterThan(0);
      for (const entry of entries)
        expect(entry, 'rois.zip entry name outside its folder').not.toMatch(/^[/\\]|(^|[/\\])\.\.([/\\]|$)/);
      if (page) {
        expectStatus(page, 200, `GET ${share.body.url}`);
        expect(html, 'the share page holds the image name as live markup').not.toContain(MARKUP);
      }
    });
  },
);
