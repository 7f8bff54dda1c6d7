import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstantMock } from '../test-support/instant-mock.js';
import type { RunningMock } from '../mock-server/server.js';

type Json = Record<string, unknown>;
let mock: RunningMock;

beforeAll(async () => {
  mock = await startInstantMock();
});
afterAll(() => mock?.close());

describe('the control document served under /__mock', () => {
  it('resolves on its own, names the mock as its server and holds the control plane only', async () => {
    const response = await fetch(`${mock.url}/__mock/openapi.json`);
    expect(response.status).toBe(200);
    const doc = (await response.json()) as Json & { paths: Record<string, unknown> };
    expect(doc.servers).toEqual([{ url: mock.url }]);
    expect(Object.keys(doc.paths)).toContain('/__mock/reset');
    expect(Object.keys(doc.paths)).toContain('/api/v1/api-keys');
    expect(Object.keys(doc.paths)).not.toContain('/api/v1/upload');

    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(0);
    const unresolved = refs.filter(
      (ref) =>
        !ref.startsWith('#/') ||
        ref
          .slice(2)
          .split('/')
          .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], doc) === undefined,
    );
    expect(unresolved).toEqual([]);
  });
});
