import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CONTROL_DOCUMENT, readDocument } from '../../../openapi/documents.js';
import { ACME_KEY, ACME_ORG, BETA_KEY, apiClient } from '../../../test-support/api-client.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { eventually } from '../../../test-support/launched-mock.js';
import type { RunningMock } from '../../server.js';

const ADMIN = 'admin-secret-token';
const DAY_MS = 86_400_000;
const A_UUID = '00000000-0000-4000-8000-000000000000';

let mock: RunningMock;
const call = (method: string, path: string, body: unknown, key: string | null) =>
  apiClient(mock.url).call(method, path, body, key);
const api = (key: string) => apiClient(mock.url, key);

beforeAll(async () => {
  mock = await startInstantMock({ adminToken: ADMIN });
});
afterAll(() => mock.close());
beforeEach(async () => {
  expect((await call('POST', '/__mock/reset', undefined, ADMIN)).status).toBe(200);
});

/** A prediction of the key's organization whose result is computed and held for its next poll. */
async function heldPrediction(key: string): Promise<string> {
  const held = await call('PUT', '/__mock/org/predictions/progress', { complete_after_polls: 1 }, key);
  expect(held.status).toBe(200);
  const ack = await api(key).predict(await api(key).uploadTiff());
  const id = ack.prediction_id;
  expect(await eventually(() => mock.services.predictions.isHeldForPolls(id), 60_000)).toBe(true);
  return id;
}

describe("an organization's test helpers, reached with its own API key", () => {
  it("forces the outcome of its own prediction, and finds no other organization's", async () => {
    const id = await heldPrediction(ACME_KEY);
    const otherOrg = await call(
      'POST',
      '/__mock/org/predictions/outcomes',
      { prediction_id: id, status: 'FAILED' },
      BETA_KEY,
    );
    expect(otherOrg.status).toBe(404);
    const forced = await call(
      'POST',
      '/__mock/org/predictions/outcomes',
      { prediction_id: id, status: 'FAILED', error: 'forced by its own key' },
      ACME_KEY,
    );
    expect(forced.status).toBe(200);
    const read = await call('GET', `/api/v1/predict/${id}`, undefined, ACME_KEY);
    expect(read.body).toMatchObject({ status: 'FAILED', error: 'forced by its own key' });
  });

  it("forces the outcome of its next prediction, not another organization's", async () => {
    const next = { status: 'FAILED', error: 'next one fails' };
    expect((await call('POST', '/__mock/org/predictions/outcomes', next, ACME_KEY)).status).toBe(200);
    const beta = await api(BETA_KEY).pollPrediction(
      (await api(BETA_KEY).predict(await api(BETA_KEY).uploadTiff())).prediction_id,
    );
    expect(beta.status).toBe('COMPLETED');
    const acme = await api(ACME_KEY).pollPrediction(
      (await api(ACME_KEY).predict(await api(ACME_KEY).uploadTiff())).prediction_id,
    );
    expect(acme).toMatchObject({ status: 'FAILED', error: 'next one fails' });
  });

  it('moves its own clock: its new records follow it, the other organization and the mock do not', async () => {
    const moved = await call('POST', '/__mock/org/clock', { advance_ms: 40 * DAY_MS }, ACME_KEY);
    expect(moved.status).toBe(200);
    expect(moved.body.offset_ms).toBe(40 * DAY_MS);
    expect((await call('GET', '/__mock/org/clock', undefined, ACME_KEY)).body.offset_ms).toBe(40 * DAY_MS);
    expect((await call('GET', '/__mock/org/clock', undefined, BETA_KEY)).body.offset_ms).toBe(0);
    expect((await call('GET', '/__mock/clock', undefined, ADMIN)).body.offset_ms).toBe(0);

    const acme = await call('GET', `/api/v1/upload/${await api(ACME_KEY).uploadTiff()}`, undefined, ACME_KEY);
    const beta = await call('GET', `/api/v1/upload/${await api(BETA_KEY).uploadTiff()}`, undefined, BETA_KEY);
    const acmeAt = Date.parse(acme.body.created_at);
    const betaAt = Date.parse(beta.body.created_at);
    expect(acmeAt - betaAt).toBeGreaterThan(39 * DAY_MS);
    expect(Math.abs(betaAt - Date.now())).toBeLessThan(DAY_MS);

    const back = await call('POST', '/__mock/org/clock', { reset: true }, ACME_KEY);
    expect(back.body.offset_ms).toBe(0);
  });

  it("counts its monthly analyses in its own clock's month", async () => {
    await call('PUT', `/__mock/organizations/${ACME_ORG}/usage`, { analyses_this_month: 3 }, ADMIN);
    const usage = async () =>
      (await call('GET', '/__mock/organizations', undefined, ADMIN)).body.find(
        (o: { id: string }) => o.id === ACME_ORG,
      ).usage.analyses_this_month;
    expect(await usage()).toBe(3);
    await call('POST', '/__mock/org/clock', { advance_ms: 40 * DAY_MS }, ACME_KEY);
    expect(await usage()).toBe(0);
  });

  it('resets its own data, and the other organization keeps its images', async () => {
    const acmeImage = await api(ACME_KEY).uploadTiff();
    const betaImage = await api(BETA_KEY).uploadTiff();
    const reset = await call('POST', '/__mock/org/reset', undefined, ACME_KEY);
    expect(reset.status).toBe(200);
    expect(reset.body.reset).toBe(ACME_ORG);
    expect((await call('GET', `/api/v1/upload/${acmeImage}`, undefined, ACME_KEY)).status).toBe(404);
    expect((await call('GET', `/api/v1/upload/${betaImage}`, undefined, BETA_KEY)).status).toBe(200);
  });

  it("reads its own journal, with no entry of another organization's requests", async () => {
    expect((await call('GET', '/api/v1/models', undefined, ACME_KEY)).status).toBe(200);
    expect((await call('GET', '/api/v1/models', undefined, BETA_KEY)).status).toBe(200);
    const journal = await call('GET', '/__mock/org/journal', undefined, ACME_KEY);
    expect(journal.status).toBe(200);
    expect(journal.body.some((e: { operation_id: string }) => e.operation_id === 'listModels')).toBe(true);
    expect(new Set(journal.body.map((e: { organization_id: string }) => e.organization_id))).toEqual(
      new Set([ACME_ORG]),
    );
  });

  it('keeps its last requests in the journal while another organization sends many more', async () => {
    const small = await startInstantMock({ adminToken: ADMIN, journalEntriesPerOrganization: 20 });
    try {
      const client = apiClient(small.url);
      const own = Array.from({ length: 5 }, (_, i) => A_UUID.slice(0, -1) + i);
      for (const id of own) await client.call('GET', `/api/v1/upload/${id}`, undefined, ACME_KEY);
      for (let i = 0; i < 300; i++) await client.call('GET', '/api/v1/models', undefined, BETA_KEY);
      const acme = await client.call('GET', '/__mock/org/journal?limit=100', undefined, ACME_KEY);
      expect(acme.body.map((e: { path: string }) => e.path)).toEqual(
        own.map((id) => `/api/v1/upload/${id}`).reverse(),
      );
      const beta = await client.call('GET', '/__mock/org/journal?limit=100', undefined, BETA_KEY);
      expect(beta.body).toHaveLength(20);
    } finally {
      await small.close();
    }
  });
});

type Caller = 'nothing' | 'wrong token' | "another organization's key" | 'own key' | 'admin token';
const CALLERS: Record<Caller, string | null> = {
  nothing: null,
  'wrong token': 'not-the-admin-token',
  "another organization's key": BETA_KEY,
  'own key': ACME_KEY,
  'admin token': ADMIN,
};

/** Every control route of the document, its path parameters filled with ACME's organization. */
function controlRoutes(): Array<{ method: string; path: string; operationId: string; scoped: boolean }> {
  const document = readDocument(CONTROL_DOCUMENT);
  const routes = [];
  for (const [template, item] of Object.entries(document.paths)) {
    if (!template.startsWith('/__mock/')) continue;
    for (const [method, operation] of Object.entries(item)) {
      if (method === 'parameters') continue;
      const op = operation as { operationId: string; security?: Array<Record<string, unknown>> };
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
      if (schemes.length === 0) continue; // health and the document are public
      routes.push({
        method: method.toUpperCase(),
        path: template.replace('{organization_id}', ACME_ORG).replace(/\{[a-z_]+\}/g, A_UUID),
        operationId: op.operationId,
        scoped: schemes.includes('bearerAuth'),
      });
    }
  }
  return routes;
}

/**
 * Operator routes answer the admin token only (a key: 403); an organization's helpers answer its
 * key only. "Reaches" means authenticated: the request may still be refused for its content.
 */
function expected(caller: Caller, scoped: boolean): 'refused 401' | 'refused 403' | 'reaches' {
  if (caller === 'nothing' || caller === 'wrong token') return 'refused 401';
  if (scoped) return caller === 'admin token' ? 'refused 401' : 'reaches';
  return caller === 'admin token' ? 'reaches' : 'refused 403';
}

describe('every control route, by caller', () => {
  const routes = controlRoutes();
  it('covers the operator routes and the scoped helpers', () => {
    expect(routes.filter((r) => r.scoped).map((r) => r.operationId)).toEqual(
      expect.arrayContaining(['mockOrgForceOutcome', 'mockOrgSetClock', 'mockOrgReset', 'mockOrgJournal']),
    );
    expect(routes.filter((r) => !r.scoped).length).toBeGreaterThan(10);
  });

  it.each(routes)('$method $path ($operationId)', async ({ method, path, scoped }) => {
    for (const caller of Object.keys(CALLERS) as Caller[]) {
      // An invalid body: the answer shows who got past authentication without changing anything.
      const body = method === 'GET' || method === 'DELETE' ? undefined : { not_a_field: true };
      const answer = await call(method, path, body, CALLERS[caller]);
      const outcome =
        answer.status === 401 ? 'refused 401' : answer.status === 403 ? 'refused 403' : 'reaches';
      expect(`${caller}: ${outcome}`).toBe(`${caller}: ${expected(caller, scoped)}`);
      expect(answer.status).toBeLessThan(500);
    }
  });
});

describe("an organization's clock when the operator moves the mock's clock after it", () => {
  it('stays a date-time: the sum of both offsets is held to 9999-01-01', async () => {
    await call('POST', '/__mock/org/clock', { now: '9998-06-01T00:00:00Z' }, ACME_KEY);
    expect((await call('POST', '/__mock/clock', { now: '9998-12-01T00:00:00Z' }, ADMIN)).status).toBe(200);
    const clock = await call('GET', '/__mock/org/clock', undefined, ACME_KEY);
    expect(clock.body.now).toBe('9999-01-01T00:00:00.000Z');
    const image = await call('POST', '/api/v1/upload', { name: 'late.tif', size: 10 }, ACME_KEY);
    expect(image.status).toBe(200);
    expect(image.body.image.created_at).toBe('9999-01-01T00:00:00.000Z');
  });
});

describe("an organization's clock across a restart", () => {
  it('is kept in the data folder', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'org-clock-'));
    try {
      const first = await startInstantMock({ dataDir: dir });
      const moved = await apiClient(first.url).call('POST', '/__mock/org/clock', { advance_ms: 5 * DAY_MS });
      expect(moved.status).toBe(200);
      await first.close();
      const second = await startInstantMock({ dataDir: dir });
      try {
        const read = await apiClient(second.url).call('GET', '/__mock/org/clock');
        expect(read.body.offset_ms).toBe(5 * DAY_MS);
        const beta = await apiClient(second.url, BETA_KEY).call('GET', '/__mock/org/clock');
        expect(beta.body.offset_ms).toBe(0);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
