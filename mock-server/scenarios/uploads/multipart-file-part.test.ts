/**
 * The `file` part is found by its field name, whatever Content-Type and filename it declares:
 * FastAPI's UploadFile takes it so, and clients differ in what they put in the part's headers.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME_KEY } from '../../../test-support/api-client.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import type { RunningMock } from '../../server.js';

const CELLS = readFileSync(fileURLToPath(new URL('../../../fixtures/samples/cells.tif', import.meta.url)));
const BOUNDARY = 'b0undary';

let mock: RunningMock;
beforeAll(async () => {
  mock = await startInstantMock();
});
afterAll(() => mock.close());

/** A multipart body with one part whose header lines are given verbatim. */
function body(partHeaders: string[], content: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\n${partHeaders.join('\r\n')}\r\n\r\n`),
    content,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

interface UploadAnswer {
  image: { name: string; size: number; upload_status: string };
  detail: Array<{ loc: string[] }>;
}

async function upload(partHeaders: string[]) {
  const response = await fetch(`${mock.url}/api/v1/upload`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${ACME_KEY}`,
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
    },
    body: body(partHeaders, CELLS),
  });
  return { status: response.status, json: (await response.json()) as UploadAnswer };
}

describe('a multipart file part', () => {
  it.each([
    [
      'image/tiff without a filename',
      ['Content-Disposition: form-data; name="file"', 'Content-Type: image/tiff'],
    ],
    ['no Content-Type and no filename', ['Content-Disposition: form-data; name="file"']],
    [
      'text/plain with a filename',
      ['Content-Disposition: form-data; name="file"; filename="cells.tif"', 'Content-Type: text/plain'],
    ],
  ])('sent as %s is the image, stored whole and ready', async (_name, headers) => {
    const answer = await upload(headers);
    expect(answer.status).toBe(200);
    expect(answer.json.image.upload_status).toBe('ready');
    expect(answer.json.image.size).toBe(CELLS.length);
  });

  it('keeps its filename as the image name, and names one without a filename upload.tif', async () => {
    const named = await upload([
      'Content-Disposition: form-data; name="file"; filename="plate 7.tif"',
      'Content-Type: image/tiff',
    ]);
    expect(named.json.image.name).toBe('plate 7.tif');
    const unnamed = await upload(['Content-Disposition: form-data; name="file"', 'Content-Type: image/tiff']);
    expect(unnamed.json.image.name).toBe('upload.tif');
  });

  it('under another field name is still not the image (422 naming the file field)', async () => {
    const answer = await upload(['Content-Disposition: form-data; name="image"', 'Content-Type: image/tiff']);
    expect(answer.status).toBe(422);
    expect(answer.json.detail[0].loc).toEqual(['body', 'file']);
  });
});
