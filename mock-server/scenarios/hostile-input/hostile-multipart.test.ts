import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseViolations } from '../../../test-support/document-responses.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import type { RunningMock } from '../../server.js';

const KEY = 'sk_test_acme_4f9a1c7e2b8d4a6f9c3e5b7d1a2c4e6f';
const B = 'XyZ';
let mock: RunningMock;
beforeAll(async () => {
  mock = await startInstantMock();
});
afterAll(() => mock.close());

function upload(
  contentType: string,
  body: string,
): Promise<{ status: number; type: string | null; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${mock.url}/api/v1/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': contentType },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'] ?? null, text }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

const part = (headers: string, content: string) => `--${B}\r\n${headers}\r\n\r\n${content}`;

describe('a malformed multipart upload', () => {
  it.each([
    ['no boundary parameter', 'multipart/form-data', 'garbage', /Boundary not found/],
    [
      'no boundary in the body',
      `multipart/form-data; boundary=${B}`,
      'garbage',
      /Unexpected end of multipart data/,
    ],
    [
      'a body cut off inside the file part',
      `multipart/form-data; boundary=${B}`,
      part('Content-Disposition: form-data; name="file"; filename="a.tif"', 'II*\0 cut'),
      /Unexpected end of multipart data/,
    ],
    [
      'a broken part header',
      `multipart/form-data; boundary=${B}`,
      // the parser skips a header line without a colon, so the part has no name
      `${part('broken header line', 'xx')}\r\n--${B}--\r\n`,
      /multipart part named 'file'/,
    ],
    [
      'no part named file',
      `multipart/form-data; boundary=${B}`,
      `${part('Content-Disposition: form-data; name="image"; filename="a.tif"', 'xx')}\r\n--${B}--\r\n`,
      /multipart part named 'file'/,
    ],
  ])('%s: 422 in the documented array shape, saying what was wrong', async (_name, type, body, detail) => {
    const answer = await upload(type, body);
    expect(answer.status).toBe(422);
    expect(answer.text).toMatch(detail);
    expect(responseViolations('uploadImage', answer.status, answer.type, answer.text)).toEqual([]);
  });
});
