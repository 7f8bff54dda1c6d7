/**
 * What a browser on another origin and an HTTP client see of the methods of each path: CORS
 * preflights with the methods and headers the path takes, 405 with Allow (RFC 9110), OPTIONS.
 * The whole flow in a real browser is in cross-origin.browser.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME_KEY } from '../../../test-support/api-client.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { ConfigError } from '../../config.js';
import type { RunningMock } from '../../server.js';
import { parseCorsOrigins } from '../../http/cors.js';

const APP_ORIGIN = 'http://localhost:5173';
const SOME_ID = '3f1c2a6e-8b7d-4c55-9a0e-6d2b1f4e9a11';

function preflight(base: string, path: string, method: string, origin = APP_ORIGIN) {
  return fetch(base + path, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization,content-type',
    },
  });
}

const listed = (header: string | null) => (header ?? '').split(/\s*,\s*/).filter(Boolean);

describe('with every origin allowed (the default)', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startInstantMock();
  });
  afterAll(() => mock.close());

  it('answers a preflight with the methods of that path and the headers its operations read', async () => {
    const cases: Array<[string, string[], boolean]> = [
      ['/api/v1/predict', ['POST'], true],
      [`/api/v1/upload/${SOME_ID}`, ['GET', 'DELETE'], true],
      [`/api/v1/export/${SOME_ID}/rois.zip`, ['GET'], true],
      ['/share/some-token', ['GET'], false],
      ['/__mock/reset', ['POST'], true],
    ];
    for (const [path, methods, authorization] of cases) {
      const answer = await preflight(mock.url, path, methods[0]);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      expect(listed(answer.headers.get('access-control-allow-methods')), path).toEqual(methods);
      const headers = listed(answer.headers.get('access-control-allow-headers'));
      expect(headers.includes('Authorization'), path).toBe(authorization);
      expect(Number(answer.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    }
    const open = listed(
      (await preflight(mock.url, '/api/v1/upload', 'POST')).headers.get('access-control-allow-headers'),
    );
    expect(open).toEqual(expect.arrayContaining(['Authorization', 'Content-Type', 'X-Request-Id']));
  });

  it('answers the presigned part route with PUT, and exposes the ETag', async () => {
    const answer = await preflight(mock.url, '/storage/uploads/u/parts/1', 'PUT');
    expect(answer.status).toBe(200);
    expect(listed(answer.headers.get('access-control-allow-methods'))).toEqual(['PUT']);
    expect(listed(answer.headers.get('access-control-allow-headers'))).toContain('Content-MD5');
    expect(listed(answer.headers.get('access-control-expose-headers'))).toContain('ETag');
  });

  it('puts the CORS headers on errors too, so the page can read a 401', async () => {
    const answer = await fetch(`${mock.url}/api/v1/models`, { headers: { origin: APP_ORIGIN } });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(listed(answer.headers.get('access-control-expose-headers'))).toContain('WWW-Authenticate');
  });

  it('answers 405 with Allow for a known path and a method it does not take', async () => {
    const cases: Array<[string, string, string]> = [
      ['PATCH', '/api/v1/models', 'GET, OPTIONS'],
      ['PUT', `/api/v1/upload/${SOME_ID}`, 'GET, DELETE, OPTIONS'],
      ['GET', '/api/v1/predict', 'POST, OPTIONS'],
      ['DELETE', '/__mock/health', 'GET, OPTIONS'],
    ];
    for (const [method, path, allow] of cases) {
      const answer = await fetch(mock.url + path, {
        method,
        headers: { authorization: `Bearer ${ACME_KEY}` },
      });
      expect(answer.status, `${method} ${path}`).toBe(405);
      expect(answer.headers.get('allow'), `${method} ${path}`).toBe(allow);
      expect(await answer.json()).toEqual({ detail: 'Method Not Allowed' });
    }
  });

  it('keeps 404 (no Allow) for an unknown path, and answers a plain OPTIONS with Allow', async () => {
    const unknown = await fetch(`${mock.url}/api/v1/nothing`, { method: 'PATCH' });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('allow')).toBeNull();
    const options = await fetch(`${mock.url}/api/v1/shares/${SOME_ID}`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, DELETE, OPTIONS');
  });

  it('keeps the part route S3-shaped: its 405 is XML with Allow', async () => {
    const answer = await fetch(`${mock.url}/storage/uploads/u/parts/1`);
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('PUT, OPTIONS');
    expect(await answer.text()).toContain('<Code>MethodNotAllowed</Code>');
  });
});

describe('with the origins restricted (--cors-origins)', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startInstantMock({ corsOrigins: `${APP_ORIGIN}, https://app.example.org` });
  });
  afterAll(() => mock.close());

  it('names a listed origin back, varying on Origin', async () => {
    const answer = await preflight(mock.url, '/api/v1/predict', 'POST');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(listed(answer.headers.get('vary'))).toContain('Origin');
  });

  it('gives another origin no CORS header, and its preflight a 403 that says how to allow it', async () => {
    const refused = await preflight(mock.url, '/api/v1/predict', 'POST', 'http://evil.example');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    expect(((await refused.json()) as { detail: string }).detail).toMatch(
      /'http:\/\/evil\.example'.*--cors-origins/,
    );
    const simple = await fetch(`${mock.url}/__mock/health`, { headers: { origin: 'http://evil.example' } });
    expect(simple.status).toBe(200);
    expect(simple.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('a bad --cors-origins', () => {
  it('stops the start with a ConfigError naming the entry', async () => {
    await expect(startInstantMock({ corsOrigins: 'localhost:5173' })).rejects.toThrow(
      /--cors-origins: 'localhost:5173' is not an origin/,
    );
  });
});

describe('parseCorsOrigins', () => {
  it('reads *, a comma list of origins, or nothing', () => {
    expect(parseCorsOrigins('*')).toBe('*');
    expect(parseCorsOrigins(' http://localhost:5173 , https://App.Example.org/ ')).toEqual(
      new Set(['http://localhost:5173', 'https://app.example.org']),
    );
    expect(parseCorsOrigins('')).toEqual(new Set());
  });

  it.each(['localhost:5173', 'http://a.example/app', 'ftp://a.example', '*, http://a.example'])(
    'refuses %s, naming it',
    (text) => {
      expect(() => parseCorsOrigins(text)).toThrow(ConfigError);
      expect(() => parseCorsOrigins(text)).toThrow(/--cors-origins/);
    },
  );
});
