import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseViolations } from '../../../test-support/document-responses.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { loadConfig } from '../../config.js';
import type { RunningMock } from '../../server.js';

const KEY = 'sk_test_acme_4f9a1c7e2b8d4a6f9c3e5b7d1a2c4e6f';
const ACME = 'bf4d51a1-7a32-4109-b955-46a2a3ad11f0';
// the shipped defaults: the bodies below are the ones that answered 500 before the limits existed
const LIMITS = loadConfig([], {});

let mock: RunningMock;
let uploadingImage: string;

interface Answer {
  status: number;
  contentType: string | null;
  text: string;
  detail: unknown;
}

/** A raw request: the body exactly as given, with Content-Length or chunked as asked. */
function send(
  method: string,
  path: string,
  body: Buffer | string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
  chunked = false,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const bytes = Buffer.from(body);
    const req = http.request(mock.url + path, {
      method,
      headers: {
        authorization: `Bearer ${KEY}`,
        ...headers,
        ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(bytes.length) }),
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let detail: unknown;
        try {
          detail = (JSON.parse(text) as { detail?: unknown }).detail;
        } catch {
          detail = undefined;
        }
        resolve({
          status: res.statusCode ?? 0,
          contentType: res.headers['content-type'] ?? null,
          text,
          detail,
        });
      });
    });
    // the server may answer and close before the whole of a large body is written
    req.on('error', (err) =>
      String(err).includes('EPIPE') || String(err).includes('ECONNRESET') ? undefined : reject(err),
    );
    if (chunked) {
      for (let i = 0; i < bytes.length; i += 4096) req.write(bytes.subarray(i, i + 4096));
      req.end();
    } else req.end(bytes);
  });
}

async function imageCount(): Promise<number> {
  const orgs = (await (await fetch(`${mock.url}/__mock/organizations`)).json()) as Array<{
    id: string;
    usage: { images: number };
  }>;
  return orgs.find((o) => o.id === ACME)!.usage.images;
}

const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
const manyKeys = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`;

interface Route {
  operationId: string;
  method: string;
  path: () => string;
  style: 'array' | 'string';
  valid: Record<string, unknown>;
}

const ROUTES: Route[] = [
  {
    operationId: 'uploadImage',
    method: 'POST',
    path: () => '/api/v1/upload',
    style: 'array',
    valid: { name: 'a.tif', size: 10 },
  },
  {
    operationId: 'createImage',
    method: 'POST',
    path: () => '/api/v1/image',
    style: 'array',
    valid: { name: 'a.tif', size: 10 },
  },
  {
    operationId: 'completeUpload',
    method: 'POST',
    path: () => `/api/v1/upload/${uploadingImage}/complete`,
    style: 'array',
    valid: { parts: [] },
  },
  {
    operationId: 'createPrediction',
    method: 'POST',
    path: () => '/api/v1/predict',
    style: 'string',
    valid: {},
  },
  { operationId: 'createShare', method: 'POST', path: () => '/api/v1/shares', style: 'string', valid: {} },
  { operationId: 'mockSetClock', method: 'POST', path: () => '/__mock/clock', style: 'string', valid: {} },
];

beforeAll(async () => {
  mock = await startInstantMock();
  const opened = await send('POST', '/api/v1/upload', JSON.stringify({ name: 'x.tif', size: 100 }));
  uploadingImage = (JSON.parse(opened.text) as { image: { id: string } }).image.id;
});
afterAll(() => mock.close());

function expectDocumented(route: Route, answer: Answer) {
  expect(answer.status, answer.text).toBeGreaterThanOrEqual(400);
  expect(answer.status, answer.text).toBeLessThan(500);
  expect(responseViolations(route.operationId, answer.status, answer.contentType, answer.text)).toEqual([]);
}

/** The detail in the route's documented 422 shape, as one string to match against. */
function detailText(route: Route, answer: Answer): string {
  if (route.style === 'string') {
    expect(typeof answer.detail).toBe('string');
    return answer.detail as string;
  }
  expect(Array.isArray(answer.detail)).toBe(true);
  return (answer.detail as Array<{ msg: string }>).map((item) => item.msg).join('; ');
}

describe.each(ROUTES)('a hostile JSON body on $operationId', (route) => {
  it('answers 422 for nesting past the limit, 100 000 deep included', async () => {
    for (const body of [
      deepArray(65),
      deepObject(65),
      deepArray(100_000),
      deepObject(100_000),
      `{"name":"x.tif","size":10,"metadata":${deepObject(5000)}}`,
    ]) {
      const answer = await send(route.method, route.path(), body);
      expectDocumented(route, answer);
      expect(answer.status).toBe(422);
      expect(detailText(route, answer)).toMatch(/nested too deep: at most 64 levels/);
    }
  });

  it('answers 422 for more keys than the limit', async () => {
    const answer = await send(route.method, route.path(), manyKeys(10_001));
    expectDocumented(route, answer);
    expect(detailText(route, answer)).toMatch(/too many keys: at most 10000/);
  });

  it('answers 422 for invalid UTF-8, naming it', async () => {
    const answer = await send(
      route.method,
      route.path(),
      Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
    );
    expectDocumented(route, answer);
    expect(detailText(route, answer)).toMatch(/not valid UTF-8/);
  });

  it('answers 422 for truncated JSON, saying where it broke', async () => {
    const body = '{"name": "x.tif", "size": 1';
    const answer = await send(route.method, route.path(), body);
    expectDocumented(route, answer);
    expect(answer.status).toBe(422);
    if (route.style === 'string')
      // the parser's message, not a field name: once "0: JSON decode error"
      expect(answer.detail).toMatch(/^JSON decode error: .+ at position 27\b/);
    else
      expect(answer.detail).toEqual([
        expect.objectContaining({
          loc: ['body', String(body.length)],
          msg: 'JSON decode error',
          type: 'json_invalid',
          ctx: { error: expect.stringMatching(/ at position 27\b/) },
        }),
      ]);
  });

  it('answers 413 with a detail for a body over the size limit, declared or chunked', async () => {
    const big = JSON.stringify({ ...route.valid, pad: 'x'.repeat(LIMITS.maxJsonBodyBytes) });
    for (const chunked of [false, true]) {
      const answer = await send(route.method, route.path(), big, undefined, chunked);
      expectDocumented(route, answer);
      expect(answer.status).toBe(413);
      expect(answer.detail).toBe(
        `Request body too large: a JSON body may have at most ${LIMITS.maxJsonBodyBytes} bytes.`,
      );
    }
  });

  it('refuses a body that is not JSON with a 4xx naming the content type', async () => {
    const answer = await send(route.method, route.path(), '{"name":"x.tif"}', {
      'content-type': 'text/plain',
    });
    expectDocumented(route, answer);
    expect(answer.text).toMatch(/text\/plain/);
  });
});

describe('a refused body changes nothing', () => {
  it('a deep metadata on POST /image creates no image', async () => {
    const before = await imageCount();
    const answer = await send(
      'POST',
      '/api/v1/image',
      `{"name":"x.tif","size":10,"metadata":${deepObject(100_000)}}`,
    );
    expect(answer.status).toBe(422);
    expect(await imageCount()).toBe(before);
  });

  it('the server keeps answering after a client drops a chunked body half-way', async () => {
    await new Promise<void>((resolve) => {
      const req = http.request(`${mock.url}/api/v1/image`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${KEY}`,
          'content-type': 'application/json',
          'transfer-encoding': 'chunked',
        },
      });
      req.on('error', () => resolve());
      req.write('{"name": "x.tif", "si');
      setImmediate(() => {
        req.destroy();
        resolve();
      });
    });
    const after = await send('POST', '/api/v1/image', JSON.stringify({ name: 'ok.tif', size: 10 }));
    expect(after.status).toBe(200);
  });
});
