import { expect } from 'vitest';
import { check } from '../harness/check.js';
import { uploadFile } from '../harness/flows.js';
import { presetTiff } from '../harness/sample-images.js';
import { expectStatus } from '../harness/steps.js';

/**
 * 100 MB (decimal) in one request: past the request-body limits a proxy in front of a service is
 * often left at (nginx's 1m by default; 10m, 50m, 64m in many configurations), and within the
 * interface's "a few hundred MB" for a single-request upload. Larger would prove more and cost each
 * run its transfer to a real target; a limit between 100 MB and a few hundred goes unseen.
 */
const SINGLE_REQUEST_BYTES = 100_000_000;

check(
  'a single-request upload of 100 MB is taken ready: no body limit in front of the service refuses what the interface suits to one request',
  { clauses: ['UP-01'] },
  async (ctx) => {
    const sample = presetTiff('easy-8bit-256');
    // the sample followed by bytes no directory of it points at, which a TIFF reader never reads:
    // the request is 100 MB, the conversion the sample's
    const bytes = Buffer.concat([sample.bytes, Buffer.alloc(SINGLE_REQUEST_BYTES - sample.bytes.length)]);
    const response = await uploadFile(ctx, bytes, 'single-request-100mb.tif');
    expectStatus(response, 200, `POST /upload multipart of ${SINGLE_REQUEST_BYTES} bytes`);
    expect(response.body.image, 'POST /upload of 100 MB: the image').toMatchObject({
      upload_status: 'ready',
      size: SINGLE_REQUEST_BYTES,
      shape: [sample.height, sample.width],
    });
  },
);
