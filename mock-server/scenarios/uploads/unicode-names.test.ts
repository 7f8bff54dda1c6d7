import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeTiff } from '../../../fixtures/generator/tiff-writer.js';
import { renderPreset } from '../../../fixtures/generator/synthetic.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import type { RunningMock } from '../../server.js';
import { contentDisposition } from '../../http/content-disposition.js';
import { ACME_KEY, apiClient } from '../../../test-support/api-client.js';

// Each is a string a JSON body can carry; the first two cannot be encoded as UTF-8 at all.
const NAMES = [
  'lone high \uD800 surrogate.tif',
  'lone low \uDC00 surrogate.tif',
  'controls \u0000\u001f\u007f and "quotes" \\ backslash %41.tif',
  'emoji \u{1F9EB} and right-to-left \u202Eevil.tif',
];
const EXPORTS = ['measurements.csv', 'rois.geojson', 'rois.zip', 'overlay.png'];

let mock: RunningMock;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  mock = await startInstantMock({ minPartSize: 1024 });
  api = apiClient(mock.url);
});
afterAll(() => mock.close());

/** A ready image with exactly this name: the resumable flow, where the name comes from JSON. */
async function imageNamed(name: string): Promise<string> {
  const { plane } = renderPreset('easy-8bit-256');
  const bytes = encodeTiff([
    { width: plane.width, height: plane.height, bitsPerSample: 8, data: plane.data },
  ]);
  const opened = await api.call('POST', '/api/v1/upload', { name, size: bytes.length });
  expect(opened.status, JSON.stringify(opened.body)).toBe(200);
  const { part_size: partSize, urls } = opened.body.upload as {
    part_size: number;
    urls: Array<{ part_number: number; url: string }>;
  };
  for (const { part_number: n, url } of urls) {
    const put = await fetch(url, { method: 'PUT', body: bytes.subarray((n - 1) * partSize, n * partSize) });
    expect(put.status).toBe(200);
  }
  const id = opened.body.image.id as string;
  expect((await api.call('POST', `/api/v1/upload/${id}/complete`)).status).toBe(202);
  for (let i = 0; i < 600; i++) {
    const { body } = await api.call('GET', `/api/v1/upload/${id}`);
    if (body.upload_status === 'ready') return id;
    if (body.upload_status === 'failed') throw new Error(`conversion failed: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the image did not become ready');
}

describe('names with any Unicode a JSON body can carry', () => {
  it.each(NAMES)(
    '%j: the image, its four exports and its share page answer 200, again and again',
    async (name) => {
      const imageId = await imageNamed(name);
      expect((await api.call('GET', `/api/v1/image/${imageId}`)).body.name).toBe(name);
      const { segmentationId } = await api.completedSegmentation(ACME_KEY, imageId);
      for (let round = 0; round < 2; round++) {
        for (const exported of EXPORTS) {
          const response = await fetch(`${mock.url}/api/v1/export/${segmentationId}/${exported}`, {
            headers: { authorization: `Bearer ${ACME_KEY}` },
          });
          await response.arrayBuffer();
          expect(response.status, exported).toBe(200);
          expect(response.headers.get('content-disposition')).toBe(contentDisposition(name, exported));
        }
      }
      const share = await api.createShare(segmentationId);
      const page = await fetch(share.url);
      await page.text();
      expect(page.status).toBe(200);
    },
  );
});

describe('contentDisposition', () => {
  it('has a printable-ASCII quoted fallback and an RFC 5987 filename* a decoder turns back into the name', () => {
    const header = contentDisposition('a \uD800 \'b\' (c)*\u00e9 "q" %41.tif', 'rois.zip');
    const [, fallback, extended] = /^attachment; filename="([^"]*)"; filename\*=UTF-8''(.*)$/.exec(header)!;
    expect(fallback).toMatch(/^[\x20-\x7e]*$/);
    expect(fallback).not.toMatch(/[%\\]/);
    expect(extended).toMatch(/^[A-Za-z0-9!#$&+\-.^_`|~%]*$/);
    expect(decodeURIComponent(extended)).toBe('a \uFFFD \'b\' (c)*\u00e9 "q" %41_rois.zip');
  });

  it('offers no path in either form: a name with folders is saved as one file name', () => {
    const header = contentDisposition('../../etc\\passwd/x.tif', 'measurements.csv');
    expect(header).toBe(
      `attachment; filename=".._.._etc_passwd_x_measurements.csv"; filename*=UTF-8''.._.._etc_passwd_x_measurements.csv`,
    );
  });
});
