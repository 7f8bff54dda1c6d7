/**
 * The operator's read of each organization's readiness, which the dashboard's Readiness panel
 * shows: the same exposure as the organization's own GET /__mock/org/readiness.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type RunningMockInstance } from '../../index.js';
import { apiClient, BETA_KEY } from '../../../test-support/api-client.js';

let mock: RunningMockInstance;
beforeAll(async () => {
  mock = await startMock({
    adminToken: 'operator-token',
    predictionStartDelayMs: 0,
    predictionRunDelayMs: 0,
  });
  await mock.setFault({ operation_id: 'listModels', status: 429, times: 1 });
  for (let i = 0; i < 2; i++)
    await fetch(`${mock.apiUrl}/models`, { headers: { authorization: `Bearer ${mock.apiKey}` } });
});
afterAll(() => mock.close());

const asOperator = { authorization: 'Bearer operator-token' };

describe('GET /__mock/organizations/{id}/readiness', () => {
  it("answers the organization's exposure, as its own key reads it", async () => {
    const orgId = mock.organizations[0].id;
    const operator = await fetch(`${mock.baseUrl}/__mock/organizations/${orgId}/readiness`, {
      headers: asOperator,
    });
    expect(operator.status).toBe(200);
    const body = (await operator.json()) as {
      organization_id: string;
      requests: number;
      since: string | null;
      operations: { operation_id: string; received_statuses: number[] }[];
      cases: { id: string; met: boolean; evidence: { status: number } | null }[];
    };
    expect(body.organization_id).toBe(orgId);
    // the window the answer reads: from the oldest request read, so a client knows what is out of reach
    expect(body.requests).toBe(2);
    expect(Date.parse(body.since!)).toBeLessThanOrEqual(Date.now());
    expect(body.operations.find((o) => o.operation_id === 'listModels')?.received_statuses).toEqual([
      200, 429,
    ]);
    const rateLimited = body.cases.find((c) => c.id === 'rate-limited');
    expect(rateLimited).toMatchObject({ met: true, evidence: { status: 429 } });
    const own = await fetch(`${mock.baseUrl}/__mock/org/readiness`, {
      headers: { authorization: `Bearer ${mock.apiKey}` },
    });
    const ownBody = (await own.json()) as typeof body;
    expect(ownBody.cases).toEqual(body.cases);
  });

  it("is the operator's: an organization key answers 403, no token 401, an unknown organization 404", async () => {
    const orgId = mock.organizations[0].id;
    const url = `${mock.baseUrl}/__mock/organizations/${orgId}/readiness`;
    expect((await fetch(url, { headers: { authorization: `Bearer ${mock.apiKey}` } })).status).toBe(403);
    expect((await fetch(url)).status).toBe(401);
    const unknown = `${mock.baseUrl}/__mock/organizations/00000000-0000-4000-8000-000000000000/readiness`;
    expect((await fetch(unknown, { headers: asOperator })).status).toBe(404);
  });

  it('the dashboard has a Readiness panel and serves the module that fills it', async () => {
    const page = await (await fetch(`${mock.baseUrl}/__mock/ui`)).text();
    expect(page).toContain('<div id="readiness-list"');
    const asset = await fetch(`${mock.baseUrl}/__mock/ui/assets/render-readiness.js`);
    expect(asset.status).toBe(200);
    expect(await asset.text()).toContain('export function renderReadiness');
    const client = await (await fetch(`${mock.baseUrl}/__mock/ui/assets/dashboard.js`)).text();
    expect(client).toContain('/readiness`');
  });
});

describe('a revoked share in the live read', () => {
  const read = async (key: string, what: 'readiness' | 'journal') =>
    (
      await fetch(`${mock.baseUrl}/__mock/org/${what}`, { headers: { authorization: `Bearer ${key}` } })
    ).json();

  it("counts its page's 404 as met, as a readiness run does, in its own organization's read only", async () => {
    const beta = apiClient(mock.baseUrl, BETA_KEY);
    const share = await beta.createShare((await beta.completedSegmentation()).segmentationId);
    expect((await fetch(share.url)).status).toBe(200);
    expect((await beta.call('DELETE', `/api/v1/shares/${share.id}`)).status).toBe(200);
    const revoked = await fetch(share.url);
    expect(revoked.status).toBe(404);
    // the visitor learns nothing the link never issued would not tell
    const neverIssued = await fetch(share.url.replace(/[^/]+$/, 'A'.repeat(43)));
    expect(await revoked.text()).toBe(await neverIssued.text());

    const cases = (await read(BETA_KEY, 'readiness')) as { cases: { id: string }[] };
    expect(cases.cases.find((c) => c.id === 'share-revoked')).toMatchObject({
      met: true,
      evidence: { operation_id: 'viewSharePage', status: 404, path: new URL(share.url).pathname },
    });
    const acme = (await read(mock.apiKey, 'readiness')) as typeof cases;
    expect(acme.cases.find((c) => c.id === 'share-revoked')).toMatchObject({ met: false });
    const acmeJournal = (await read(mock.apiKey, 'journal')) as { operation_id: string | null }[];
    expect(acmeJournal.filter((e) => e.operation_id === 'viewSharePage')).toEqual([]);
  });

  it('counts the 404 of its preview image alone as met too, as a readiness run does', async () => {
    const acme = apiClient(mock.baseUrl, mock.apiKey);
    const share = await acme.createShare((await acme.completedSegmentation()).segmentationId);
    const image = `${share.url}/image.png`;
    expect((await fetch(image)).status).toBe(200);
    expect((await acme.call('DELETE', `/api/v1/shares/${share.id}`)).status).toBe(200);
    expect((await fetch(image)).status).toBe(404);
    const cases = (await read(mock.apiKey, 'readiness')) as { cases: { id: string }[] };
    expect(cases.cases.find((c) => c.id === 'share-revoked')).toMatchObject({
      met: true,
      evidence: { operation_id: 'viewShareImage', status: 404, path: new URL(image).pathname },
    });
    // A live share's image is the page's, loaded with it: not a view of its own in the journal.
    const journal = (await read(mock.apiKey, 'journal')) as { operation_id: string | null; status: number }[];
    expect(journal.filter((e) => e.operation_id === 'viewShareImage').map((e) => e.status)).toEqual([404]);
  });
});

describe('an expired part URL in the live read', () => {
  it('applies to a resumable upload opened by POST /upload {name, size}, and is met by its refused complete', async () => {
    const created = await fetch(`${mock.baseUrl}/__mock/organizations`, {
      method: 'POST',
      headers: { ...asOperator, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'uploads', plan: { storage_cap_images: 5, monthly_analysis_cap: 5 } }),
    });
    const key = ((await created.json()) as { api_keys: string[] }).api_keys[0];
    const client = apiClient(mock.baseUrl, key);
    const partUrlExpired = async () =>
      (
        (await (
          await fetch(`${mock.baseUrl}/__mock/org/readiness`, { headers: { authorization: `Bearer ${key}` } })
        ).json()) as { cases: { id: string }[] }
      ).cases.find((c) => c.id === 'part-url-expired');
    await client.uploadTiff(key);
    // a one-request upload hands out no part URL
    expect(await partUrlExpired()).toMatchObject({ applies: false, met: false });

    const opened = await client.call('POST', '/api/v1/upload', { name: 'cells.tif', size: 1000 });
    expect(await partUrlExpired()).toMatchObject({ applies: true, met: false });
    const { image, upload } = opened.body as { image: { id: string }; upload: { urls: { url: string }[] } };
    await fetch(`${mock.baseUrl}/__mock/clock`, {
      method: 'POST',
      headers: { ...asOperator, 'content-type': 'application/json' },
      body: JSON.stringify({ advance_ms: (86_400 + 60) * 1000 }),
    });
    const put = await fetch(upload.urls[0].url, { method: 'PUT', body: new Uint8Array(1000) });
    expect(put.status).toBe(403);
    expect((await client.call('POST', `/api/v1/upload/${image.id}/complete`)).status).toBe(422);
    expect(await partUrlExpired()).toMatchObject({
      applies: true,
      met: true,
      evidence: { operation_id: 'completeUpload', status: 422 },
    });
  });

  it('is met by the same file opened again, as a readiness run judges it; a delete alone, or the next file, is not', async () => {
    const created = await fetch(`${mock.baseUrl}/__mock/organizations`, {
      method: 'POST',
      headers: { ...asOperator, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'reopens', plan: { storage_cap_images: 9, monthly_analysis_cap: 5 } }),
    });
    const key = ((await created.json()) as { api_keys: string[] }).api_keys[0];
    const client = apiClient(mock.baseUrl, key);
    const partUrlExpired = async () =>
      (
        (await (
          await fetch(`${mock.baseUrl}/__mock/org/readiness`, { headers: { authorization: `Bearer ${key}` } })
        ).json()) as { cases: { id: string }[] }
      ).cases.find((c) => c.id === 'part-url-expired');
    const open = async (name: string) =>
      ((await client.call('POST', '/api/v1/upload', { name, size: 1000 })).body as { image: { id: string } })
        .image.id;

    const first = await open('first.tif');
    expect((await client.call('DELETE', `/api/v1/upload/${first}`)).status).toBe(200);
    expect(await partUrlExpired()).toMatchObject({ applies: true, met: false });
    await open('second.tif');
    expect(await partUrlExpired()).toMatchObject({ applies: true, met: false });
    await open('first.tif');
    expect(await partUrlExpired()).toMatchObject({
      applies: true,
      met: true,
      evidence: { operation_id: 'uploadImage', status: 200 },
    });
  });
});
