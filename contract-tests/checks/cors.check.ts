import { randomUUID } from 'node:crypto';
import type { ApiClient } from '../harness/api-client.js';
import { check, type CheckContext } from '../harness/check.js';
import { throwawayOrganization } from '../harness/control-plane.js';
import { completedSegmentation, trackImage } from '../harness/flows.js';
import { presetTiff } from '../harness/sample-images.js';
import { expectStatus, need } from '../harness/steps.js';
import type { UploadResponse } from '../../openapi/generated/client/types.gen.js';

/** An origin no target serves itself: a page elsewhere calling the API, as a browser names it. */
const ORIGIN = 'https://contract-suite.example';
/** The four exports: a page downloads each and reads its file name (Content-Disposition) and ETag. */
const EXPORTS = ['exportOverlayPng', 'exportMeasurementsCsv', 'exportRoisGeojson', 'exportRoisZip'];

/**
 * The segmentation whose exports a page downloads. A segmentation costs an analysis: a throw-away
 * organization's where the control plane makes one, else none, and each export route answers 404
 * to an id nobody has, with the CORS headers the oracle judges on any answer (a CDN's rule over
 * the export routes rewrites those too), so a real organization's month is untouched.
 */
async function exportable(ctx: CheckContext): Promise<{ client: ApiClient; segmentationId: string }> {
  if (!ctx.target.capabilities.has('control')) return { client: ctx.api, segmentationId: randomUUID() };
  const { client } = await throwawayOrganization(ctx, 'cors', {
    storage_cap_images: 1,
    monthly_analysis_cap: 1,
  });
  return { client, ...(await completedSegmentation(ctx, presetTiff().bytes, client)) };
}

check(
  'a page of another origin can read the headers a client acts on, from the API, its exports and the part URLs',
  { clauses: ['CORS-01'] },
  async (ctx) => {
    // the oracle judges every answer to a request with an Origin (contract-tests/model/cors.ts):
    // a success, a 401, an unknown route, a resumable upload opened, its part PUT, read and
    // deleted, each export of a segmentation (a route a CDN may answer with headers of its own),
    // and the preflights a page's calls need
    const headers = { origin: ORIGIN };
    await ctx.api.call('listModels', { headers });
    await ctx.api.call('listModels', { headers, key: null });
    await ctx.api.raw('GET', '/api/v1/this-route-does-not-exist', { headers });
    const opened = need(
      await ctx.api.call<UploadResponse>('uploadImage', {
        headers,
        body: { name: `${ctx.target.namePrefix}cors.tif`, size: 1000 },
      }),
      200,
      ['image.id', 'upload.urls'],
    ).body;
    trackImage(ctx, ctx.api, opened.image.id);
    const part = await ctx.api.raw('PUT', opened.upload!.urls[0].url, {
      headers,
      body: Buffer.alloc(1000, 7),
      key: null,
    });
    expectStatus(part, 200, 'PUT the part from another origin');
    const params = { image_id: opened.image.id };
    await ctx.api.call('getUpload', { headers, params });
    const { client, segmentationId } = await exportable(ctx);
    for (const operationId of EXPORTS)
      await client.call(operationId, { headers, params: { segmentation_id: segmentationId } });
    // a browser's preflights, which carry no key: reads, a JSON write and a delete, each asking
    // only for headers a client of the interface sends (X-Request-Id is the document's alone)
    for (const [method, path, asked] of [
      ['GET', '/api/v1/models', 'authorization'],
      ['POST', '/api/v1/image', 'authorization,content-type'],
      ['DELETE', `/api/v1/upload/${opened.image.id}`, 'authorization'],
      ['GET', `/api/v1/export/${segmentationId}/rois.zip`, 'authorization'],
    ])
      await ctx.api.raw('OPTIONS', path, {
        key: null,
        headers: {
          ...headers,
          'access-control-request-method': method,
          'access-control-request-headers': asked,
        },
      });
    await ctx.api.call('deleteUpload', { headers, params });
  },
);
