import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type RunningMock } from '../../server.js';

const KEY = 'sk_test_acme_4f9a1c7e2b8d4a6f9c3e5b7d1a2c4e6f';
const corpusDir = path.resolve('fixtures/corpus');
const expected = JSON.parse(readFileSync(path.join(corpusDir, 'expected.json'), 'utf8')) as Array<{
  file: string;
  description: string;
  outcome: 'ready' | 'failed';
  shape?: number[];
  errorIncludes?: string;
}>;

let mock: RunningMock;
beforeAll(async () => {
  mock = await startMockServer({ port: 0, logLevel: 'silent' });
});
afterAll(() => mock.close());

async function upload(bytes: Buffer, name: string) {
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  const response = await fetch(`${mock.url}/api/v1/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}` },
    body: form,
  });
  return {
    status: response.status,
    body: (await response.json()) as {
      success: boolean;
      image: { id: string; upload_status: string; shape: number[] | null; upload_error?: string };
    },
  };
}

describe('every file of the broken-and-unusual corpus, through a single-request upload', () => {
  for (const entry of expected) {
    it(`${entry.file}: ${entry.description} -> ${entry.outcome}`, async () => {
      const { status, body } = await upload(readFileSync(path.join(corpusDir, entry.file)), entry.file);
      expect(status).toBe(200);
      expect(body.image.upload_status).toBe(entry.outcome);
      expect(body.success).toBe(entry.outcome === 'ready');
      if (entry.shape) expect(body.image.shape).toEqual(entry.shape);
      if (entry.errorIncludes) expect(body.image.upload_error).toContain(entry.errorIncludes);
      // the record is whole: readable, and deletable
      const read = await fetch(`${mock.url}/api/v1/upload/${body.image.id}`, {
        headers: { authorization: `Bearer ${KEY}` },
      });
      expect(((await read.json()) as { upload_status: string }).upload_status).toBe(entry.outcome);
      const deleted = await fetch(`${mock.url}/api/v1/image/${body.image.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${KEY}` },
      });
      expect(deleted.status).toBe(200);
    });
  }

  it('the server is still up after all of them', async () => {
    const response = await fetch(`${mock.url}/__mock/health`);
    expect(response.status).toBe(200);
  });
});

describe('size limits', () => {
  it('refuses a file declared over 4 GB before reading it, and frees the reserved slot', async () => {
    const { request } = await import('node:http');
    const url = new URL(`${mock.url}/api/v1/upload`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: {
            authorization: `Bearer ${KEY}`,
            'content-type': 'multipart/form-data; boundary=x',
            'content-length': String(5 * 1024 ** 3),
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write('--x\r\nContent-Disposition: form-data; name="file"; filename="huge.tif"\r\n\r\n');
    });
    expect(status).toBe(413);
    const org = (await mock.services.state.organizations.get('bf4d51a1-7a32-4109-b955-46a2a3ad11f0'))!;
    expect(await mock.services.images.storedCount(org)).toBe(
      await mock.services.state.images.countOf(org.id),
    );
  });

  it('cuts off a streamed file as soon as it passes the configured limit', async () => {
    const small = await startMockServer({ port: 0, logLevel: 'silent', maxUploadBytes: 1024 });
    try {
      const form = new FormData();
      form.append('file', new Blob([Buffer.alloc(4096)]), 'big.tif');
      const response = await fetch(`${small.url}/api/v1/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}` },
        body: form,
      });
      expect(response.status).toBe(413);
      expect(((await response.json()) as { detail: string }).detail).toContain('1024');
      expect(await small.services.state.images.countOf('bf4d51a1-7a32-4109-b955-46a2a3ad11f0')).toBe(0);
    } finally {
      await small.close();
    }
  });
});
