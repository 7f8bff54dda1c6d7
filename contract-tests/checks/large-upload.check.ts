import { expect } from 'vitest';
import { check } from '../harness/check.js';
import { trackImage } from '../harness/flows.js';
import { presetTiff } from '../harness/sample-images.js';
import { BlockedByStep, expectStatus } from '../harness/steps.js';
import type { UploadResponse } from '../../openapi/generated/client/types.gen.js';

/**
 * 100 MB (decimal) in one request: past the request-body limits a proxy in front of a service is
 * often left at (nginx's 1m by default; 10m, 50m, 64m in many configurations), and within the
 * interface's "a few hundred MB" for a single-request upload. Larger would prove more and cost each
 * run its transfer to a real target; a limit between 100 MB and a few hundred goes unseen.
 */
const SINGLE_REQUEST_BYTES = 100_000_000;
/**
 * The least rate the suite asks of the runner's link to the target (bytes a second): the upload
 * gets its transfer at this rate on top of --request-timeout-ms, so a slow runner does not fail a
 * healthy target; below it the check is blocked, saying so.
 */
const LEAST_RATE = 1_000_000;
const TRANSFER_MS = (SINGLE_REQUEST_BYTES / LEAST_RATE) * 1000;

check(
  'a single-request upload of 100 MB is taken ready: no body limit in front of the service refuses what the interface suits to one request',
  // the transfer's time on top of the check's own
  { clauses: ['UP-01'], timeout: 120_000 + TRANSFER_MS },
  async (ctx) => {
    const sample = presetTiff('easy-8bit-256');
    // the sample followed by bytes no directory of it points at, which a TIFF reader never reads:
    // the request is 100 MB, the conversion the sample's
    const bytes = Buffer.concat([sample.bytes, Buffer.alloc(SINGLE_REQUEST_BYTES - sample.bytes.length)]);
    const form = new FormData();
    form.append(
      'file',
      new Blob([bytes], { type: 'image/tiff' }),
      `${ctx.target.namePrefix}single-request-100mb.tif`,
    );
    const source = `${SINGLE_REQUEST_BYTES} bytes at the suite's least rate of ${LEAST_RATE / 1e6} MB/s, plus --request-timeout-ms`;
    const ms = TRANSFER_MS + ctx.target.requestTimeoutMs;
    const response = await ctx.api
      .call<UploadResponse>('uploadImage', {
        rawBody: form,
        baseUrl: ctx.target.directBaseUrl,
        timeout: { ms, source },
      })
      .catch((error: Error) => {
        if (!error.message.includes(source)) throw error;
        throw new BlockedByStep(
          {
            key: 'uploadImage of 100 MB timed out',
            text: `POST /api/v1/upload (uploadImage) of ${SINGLE_REQUEST_BYTES} bytes`,
          },
          ` got no whole answer within ${ms} ms (${source}): the link to the target is slower than that, or the target held the request`,
        );
      });
    if (response.status === 200) trackImage(ctx, ctx.api, response.body.image.id);
    expectStatus(response, 200, `POST /upload multipart of ${SINGLE_REQUEST_BYTES} bytes`);
    expect(response.body.image, 'POST /upload of 100 MB: the image').toMatchObject({
      upload_status: 'ready',
      size: SINGLE_REQUEST_BYTES,
      shape: [sample.height, sample.width],
    });
  },
);
