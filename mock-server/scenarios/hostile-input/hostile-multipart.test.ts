import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import http from 'node:http';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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

/** Files a single-request upload left in the mock's incoming folder, and this process's descriptors on them. */
function leftInIncoming(): { files: string[]; open: string[] } {
  const incoming = mock.services.paths.incoming;
  const files = readdirSync(incoming).filter((name) => name.endsWith('.upload'));
  const open = !existsSync('/proc/self/fd')
    ? []
    : readdirSync('/proc/self/fd').flatMap((fd) => {
        try {
          const target = readlinkSync(`/proc/self/fd/${fd}`);
          return target.startsWith(incoming + path.sep) ? [target] : [];
        } catch {
          return []; // closed while listed
        }
      });
  return { files, open };
}

describe('a multipart upload that fails after its file part began', () => {
  const filePart = `${part('Content-Disposition: form-data; name="file"; filename="a.tif"', 'II*\0'.padEnd(4096, 'x'))}\r\n`;

  it('a body that ends after the file part, with no closing boundary: 422, and the received file is removed', async () => {
    const answer = await upload(`multipart/form-data; boundary=${B}`, `${filePart}--${B}\r\n`);
    expect(answer.status).toBe(422);
    expect(answer.text).toMatch(/Unexpected end of multipart data/);
    await vi.waitFor(() => expect(leftInIncoming()).toEqual({ files: [], open: [] }));
  });

  it('a client gone half-way through the file: its file is removed and its descriptor closed', async () => {
    const url = new URL(mock.url);
    const socket = connect(Number(url.port), url.hostname);
    socket.on('error', () => undefined);
    const head = [
      'POST /api/v1/upload HTTP/1.1',
      `Host: ${url.host}`,
      `Authorization: Bearer ${KEY}`,
      `Content-Type: multipart/form-data; boundary=${B}`,
      `Content-Length: ${filePart.length * 100}`,
    ].join('\r\n');
    socket.write(`${head}\r\n\r\n${filePart}`);
    // the file has begun to arrive before the client goes
    await vi.waitFor(() => expect(leftInIncoming().files).toHaveLength(1));
    socket.destroy();
    await vi.waitFor(() => expect(leftInIncoming()).toEqual({ files: [], open: [] }));
  });
});
