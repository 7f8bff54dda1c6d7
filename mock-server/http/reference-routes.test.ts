/** /openapi.json and /openapi.yaml: the public document as written, pointing at this mock. */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startInstantMock } from '../../test-support/instant-mock.js';
import type { RunningMock } from '../server.js';
import { PUBLIC_DOCUMENT } from '../../openapi/documents.js';

let mock: RunningMock;
beforeAll(async () => {
  mock = await startInstantMock({ publicBaseUrl: 'http://mock.example:9000' });
});
afterAll(() => mock.close());

const local = (path: string) => `http://127.0.0.1:${mock.config.port}${path}`;

describe('the document at runtime', () => {
  it('serves the public document as JSON, without a credential, servers set to the public base URL', async () => {
    const answer = await fetch(local('/openapi.json'));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    const served = (await answer.json()) as Record<string, unknown>;
    const written = parse(readFileSync(PUBLIC_DOCUMENT, 'utf8')) as Record<string, unknown>;
    expect(served.servers).toEqual([{ url: 'http://mock.example:9000', description: 'This mock' }]);
    expect({ ...served, servers: written.servers }).toEqual(written);
  });

  it('serves the same document as YAML', async () => {
    const answer = await fetch(local('/openapi.yaml'));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/yaml/);
    const text = await answer.text();
    const json = await (await fetch(local('/openapi.json'))).json();
    expect(parse(text)).toEqual(json);
  });

  it('answers HEAD, and 405 with Allow to another method', async () => {
    expect((await fetch(local('/openapi.json'), { method: 'HEAD' })).status).toBe(200);
    const post = await fetch(local('/openapi.json'), { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('serves only the renderer files the page uses from its package', async () => {
    const bundle = await fetch(local('/docs/swagger-ui-bundle.js'));
    expect(bundle.status).toBe(200);
    const bytes = Buffer.from(await bundle.arrayBuffer());
    expect(bytes.length).toBe(Number(bundle.headers.get('content-length')));
    expect(bytes.length).toBeGreaterThan(100_000);
    const head = await fetch(local('/docs/swagger-ui-bundle.js'), { method: 'HEAD' });
    expect(head.headers.get('content-length')).toBe(String(bytes.length));
    expect((await fetch(local('/docs/%E0'))).status).toBe(404);
    const lastModified = bundle.headers.get('last-modified') ?? '';
    const revalidated = await fetch(local('/docs/swagger-ui-bundle.js'), {
      headers: { 'If-Modified-Since': lastModified },
    });
    expect(revalidated.status).toBe(304);
    expect((await revalidated.arrayBuffer()).byteLength).toBe(0);
    const older = new Date(Date.parse(lastModified) - 1000).toUTCString();
    expect(
      (await fetch(local('/docs/swagger-ui-bundle.js'), { headers: { 'If-Modified-Since': older } })).status,
    ).toBe(200);
    expect((await fetch(local('/docs/package.json'))).status).toBe(404);
    expect((await fetch(local('/docs/..%2Fpackage.json'))).status).toBe(404);
  });
});

describe('the renderer of /docs', () => {
  it('installs with the package without anything that reports installs (swagger-ui-dist is a devDependency)', () => {
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const runtime = Object.entries(lock.packages)
      .filter(([where, entry]) => where !== '' && !entry.dev)
      .map(([where]) => where.replace(/^.*node_modules\//, ''));
    expect(runtime).not.toContain('@scarf/scarf');
    expect(runtime).not.toContain('swagger-ui-dist');
  });
});
