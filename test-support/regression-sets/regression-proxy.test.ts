import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRegressionProxy, type RunningProxy } from './regression-proxy.js';
import type { Regression } from './regression.js';
import { SET_A } from './set-a/index.js';

/**
 * The proxy carries a regression as designed: the answer differs exactly where the bug says and
 * nowhere else, state is kept across requests, and a hook that throws is reported. The upstream is
 * a small stand-in server (the whole set against the real mock is `npm run regressions`).
 */

const SHARE_ID = '2a4b6c8d-1e3f-4a5b-9c7d-8e9f0a1b2c3d';
const IMAGE_ID = '3f1c2a6e-8b7d-4c55-9a0e-6d2b1f4e9a11';

let upstream: http.Server;
let target = '';
const deleted = new Set<string>();

function regression(id: string): Regression {
  const found = SET_A.find((r) => r.id === id);
  if (!found) throw new Error(`no regression ${id} in set A`);
  return found;
}

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && req.url === `/api/v1/shares/${SHARE_ID}`)
      return json(200, {
        id: SHARE_ID,
        segmentation_id: '5e8f1a2b-9c3d-4e7f-8a1b-2c3d4e5f6a77',
        access: 'anyone_with_link',
        role: 'viewer',
        url: `${target}/share/q1w2e3r4`,
        view_count: 0,
        created_at: '2026-11-22T10:05:00.000Z',
      });
    if (req.method === 'DELETE' && req.url === `/api/v1/image/${IMAGE_ID}`) {
      if (deleted.has(IMAGE_ID)) return json(404, { detail: 'Image not found' });
      deleted.add(IMAGE_ID);
      return json(200, { success: true });
    }
    json(404, { detail: 'Not found' });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

async function through(proxy: RunningProxy, method: string, path: string) {
  const answer = await fetch(proxy.url + path, { method, headers: { authorization: 'Bearer sk_test_x' } });
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
}

describe('the regression proxy', () => {
  it("without a regression answers what the mock answers, its root replaced by the proxy's", async () => {
    const proxy = await startRegressionProxy(target);
    try {
      const { status, body } = await through(proxy, 'GET', `/api/v1/shares/${SHARE_ID}`);
      expect(status).toBe(200);
      expect(body.role).toBe('viewer');
      expect(body.url).toBe(`${proxy.url}/share/q1w2e3r4`);
    } finally {
      await proxy.close();
    }
  });

  it('with A-SH-ROLE-EDITOR answers the share with role editor and nothing else changed', async () => {
    const healthy = await startRegressionProxy(target);
    const broken = await startRegressionProxy(target, regression('A-SH-ROLE-EDITOR'));
    try {
      const expected = (await through(healthy, 'GET', `/api/v1/shares/${SHARE_ID}`)).body;
      const { body } = await through(broken, 'GET', `/api/v1/shares/${SHARE_ID}`);
      expect(body).toEqual({ ...expected, role: 'editor', url: `${broken.url}/share/q1w2e3r4` });
      expect(broken.hookErrors).toEqual([]);
    } finally {
      await Promise.all([healthy.close(), broken.close()]);
    }
  });

  it('with A-DEL-TWICE-200 remembers a delete and answers the second one 200 where the mock says 404', async () => {
    deleted.clear();
    const proxy = await startRegressionProxy(target, regression('A-DEL-TWICE-200'));
    try {
      expect(await through(proxy, 'DELETE', `/api/v1/image/${IMAGE_ID}`)).toEqual({
        status: 200,
        body: { success: true },
      });
      expect(await through(proxy, 'DELETE', `/api/v1/image/${IMAGE_ID}`)).toEqual({
        status: 200,
        body: { success: true },
      });
      const healthy = await startRegressionProxy(target);
      try {
        expect((await through(healthy, 'DELETE', `/api/v1/image/${IMAGE_ID}`)).status).toBe(404);
      } finally {
        await healthy.close();
      }
    } finally {
      await proxy.close();
    }
  });

  it('reports a hook that throws, so the runner does not count the 502 as a catch', async () => {
    const throwing: Regression = {
      ...regression('A-SH-ROLE-EDITOR'),
      response() {
        throw new Error('broken hook');
      },
    };
    const proxy = await startRegressionProxy(target, throwing);
    try {
      expect((await through(proxy, 'GET', `/api/v1/shares/${SHARE_ID}`)).status).toBe(502);
      expect(proxy.hookErrors).toHaveLength(1);
      expect(proxy.hookErrors[0]).toContain('broken hook');
    } finally {
      await proxy.close();
    }
  });

  it('set A has unique ids, each with its description, the sentence it breaks and where that is stated', () => {
    expect(new Set(SET_A.map((r) => r.id)).size).toBe(SET_A.length);
    expect(SET_A.length).toBeGreaterThanOrEqual(35);
    for (const r of SET_A) {
      expect(r.description.length, r.id).toBeGreaterThan(10);
      expect(r.violates.length, r.id).toBeGreaterThan(10);
      expect(['interface', 'document'], r.id).toContain(r.statedIn);
      expect(r.request ?? r.response, r.id).toBeDefined();
    }
  });
});
