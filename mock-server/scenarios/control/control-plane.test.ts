import { startInstantMock } from '../../../test-support/instant-mock.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../../../test-support/launched-mock.js';
import { ACME_KEY, apiClient } from '../../../test-support/api-client.js';
import type { RunningMock } from '../../server.js';

const ACME = 'bf4d51a1-7a32-4109-b955-46a2a3ad11f0';
const TINY = 'fe75ac17-bdfa-4153-8bbc-232496a78d14';
const TINY_KEY = 'sk_test_tiny_1a3c5e7b9d2f4a6c8e0b1d3f5a7c9e2b';
const ADMIN = 'admin-secret-token';

let mock: RunningMock;

const call = (method: string, path: string, body?: unknown, key: string | null = ADMIN) =>
  apiClient(mock.url).call(method, path, body, key);

beforeAll(async () => {
  mock = await startInstantMock({ adminToken: ADMIN });
});
afterAll(() => mock.close());
beforeEach(async () => {
  expect((await call('POST', '/__mock/reset')).status).toBe(200);
});

describe('the control plane', () => {
  it('refuses requests without the admin token when one is configured', async () => {
    expect((await call('GET', '/__mock/organizations', undefined, null)).status).toBe(401);
    expect((await call('GET', '/__mock/organizations', undefined, 'not-the-admin-token')).status).toBe(401);
    // A known key is not the operator: its own helpers are under /__mock/org.
    expect((await call('GET', '/__mock/organizations', undefined, ACME_KEY)).status).toBe(403);
    expect((await call('GET', '/__mock/health', undefined, null)).status).toBe(200);
  });

  it('creates an organization whose generated key works on the API', async () => {
    const created = await call('POST', '/__mock/organizations', {
      name: 'QA',
      plan: { storage_cap_images: 1, monthly_analysis_cap: 1 },
    });
    expect(created.status).toBe(200);
    const key = created.body.api_keys[0];
    expect(key).toMatch(/^sk_test_[0-9a-f]{32}$/);
    expect((await call('GET', '/api/v1/models', undefined, key)).status).toBe(200);
    const extra = await call('POST', `/__mock/organizations/${created.body.id}/keys`);
    expect((await call('GET', '/api/v1/models', undefined, extra.body.api_key)).status).toBe(200);
  });

  it('answers 409 to an organization whose id or key is already in use, as the document lists, and makes nothing', async () => {
    const plan = { storage_cap_images: 1, monthly_analysis_cap: 1 };
    const first = await call('POST', '/__mock/organizations', { name: 'Taken', plan });
    expect(first.status).toBe(200);
    const sameId = await call('POST', '/__mock/organizations', { id: first.body.id, name: 'Again', plan });
    expect(sameId.status).toBe(409);
    expect(sameId.body.detail).toBe(`Organization ${first.body.id} already exists`);
    const sameKey = await call('POST', '/__mock/organizations', {
      name: 'Same key',
      plan,
      api_keys: [first.body.api_keys[0]],
    });
    expect(sameKey.status).toBe(409);
    expect(sameKey.body.detail).toBe('API key already in use');
    const names = ((await call('GET', '/__mock/organizations')).body as Array<{ name: string }>).map(
      (o) => o.name,
    );
    expect(names).toContain('Taken');
    expect(names).not.toContain('Again');
    expect(names).not.toContain('Same key');
  });

  it('sets a plan, and the storage cap follows it', async () => {
    expect(
      (
        await call('PUT', `/__mock/organizations/${TINY}/plan`, {
          storage_cap_images: 0,
          monthly_analysis_cap: 5,
        })
      ).status,
    ).toBe(200);
    const refused = await call('POST', '/api/v1/upload', { name: 'a.tif', size: 10 }, TINY_KEY);
    expect(refused.status).toBe(402);
    expect(refused.body.detail).toContain('allows 0 images');
  });

  it('counts usage by the mock clock: a new month resets the analysis quota', async () => {
    await call('PUT', `/__mock/organizations/${TINY}/usage`, { analyses_this_month: 2 });
    const before = (await call('GET', '/__mock/organizations')).body.find(
      (o: { id: string }) => o.id === TINY,
    );
    expect(before.usage.analyses_this_month).toBe(2);
    const now = new Date((await call('GET', '/__mock/clock')).body.now);
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 2));
    const moved = await call('POST', '/__mock/clock', { now: nextMonth.toISOString() });
    expect(moved.body.month).toBe(nextMonth.toISOString().slice(0, 7));
    const after = (await call('GET', '/__mock/organizations')).body.find(
      (o: { id: string }) => o.id === TINY,
    );
    expect(after.usage.analyses_this_month).toBe(0);
  });

  it('injects a status fault a given number of times, then clears it', async () => {
    const fault = await call('POST', '/__mock/faults', {
      operation_id: 'listModels',
      status: 503,
      detail: 'maintenance',
      times: 2,
    });
    expect(fault.status).toBe(200);
    expect((await call('GET', '/api/v1/models', undefined, ACME_KEY)).status).toBe(503);
    expect((await call('GET', '/api/v1/models', undefined, ACME_KEY)).body).toEqual({
      detail: 'maintenance',
    });
    expect((await call('GET', '/api/v1/models', undefined, ACME_KEY)).status).toBe(200);
    expect((await call('GET', '/__mock/faults')).body).toEqual([]);
  });

  it.each([429, 503])(
    'answers an injected %i with the Retry-After the document requires of every one',
    async (status) => {
      await call('POST', '/__mock/faults', { operation_id: 'listModels', status, times: 1 });
      const refused = await call('GET', '/api/v1/models', undefined, ACME_KEY);
      expect(refused.status).toBe(status);
      expect(refused.headers.get('retry-after')).toBe('1');
    },
  );

  it('drops the connection when asked', async () => {
    await call('POST', '/__mock/faults', { operation_id: 'listModels', drop_connection: true, times: 1 });
    await expect(call('GET', '/api/v1/models', undefined, ACME_KEY)).rejects.toThrow();
    expect((await call('GET', '/api/v1/models', undefined, ACME_KEY)).status).toBe(200);
  });

  it('delays a request for a latency fault and then answers it normally, as the journal records', async () => {
    const fault = await call('POST', '/__mock/faults', {
      operation_id: 'listModels',
      latency_ms: 150,
      times: 1,
    });
    expect((await call('GET', '/api/v1/models', undefined, ACME_KEY)).status).toBe(200);
    const entry = (await call('GET', '/__mock/journal?operation_id=listModels&limit=1')).body[0];
    expect(entry).toMatchObject({ status: 200, fault: fault.body.id });
    // No stopwatch in the test: duration_ms is the mock's own reading of its monotonic clock, the
    // clock the fault waits on, so the bound holds however loaded the machine is.
    expect(entry.duration_ms).toBeGreaterThanOrEqual(150);
  });

  it('never fires a fault of probability 0, and always one of probability 1', async () => {
    await call('POST', '/__mock/faults', { operation_id: 'listModels', status: 500, probability: 0 });
    for (let i = 0; i < 5; i++)
      expect((await call('GET', '/api/v1/models', undefined, ACME_KEY)).status).toBe(200);
    await call('DELETE', '/__mock/faults');
    await call('POST', '/__mock/faults', { operation_id: 'listModels', status: 503, probability: 1 });
    for (let i = 0; i < 5; i++)
      expect((await call('GET', '/api/v1/models', undefined, ACME_KEY)).status).toBe(503);
    expect((await call('GET', '/__mock/faults')).body[0].hits).toBe(5);
  });

  it('refuses a fault on an operation the document does not have', async () => {
    const response = await call('POST', '/__mock/faults', { operation_id: 'noSuchOperation', status: 500 });
    expect(response.status).toBe(422);
    expect(response.body.detail).toContain('noSuchOperation');
    // and lists the names it takes, so a guess is not the next step
    expect(response.body.detail).toMatch(/; one of .*\blistModels\b.*\bexportRoisZip\b/);
  });

  it('keeps a journal of API requests, filterable by operation and status', async () => {
    await call('GET', '/api/v1/models', undefined, ACME_KEY);
    await call('GET', '/api/v1/models', undefined, null);
    const unauthorized = await call('GET', '/__mock/journal?operation_id=listModels&status=401');
    expect(unauthorized.body).toHaveLength(1);
    expect(unauthorized.body[0]).toMatchObject({ method: 'GET', path: '/api/v1/models', status: 401 });
    const all = await call('GET', '/__mock/journal?operation_id=listModels');
    expect(all.body[0].organization_id).toBeNull();
    expect(all.body[1].organization_id).toBe(ACME);
  });

  it('journals the path template matched, the media type and the request body shape without its values', async () => {
    const metadata = { plate: 'A1', wells: [1, 2.5], nested: { ok: true, none: null } };
    await call('POST', '/api/v1/upload', { name: 'secret-name.tif', size: 10, metadata }, ACME_KEY);
    await call('GET', '/api/v1/predict/3f1c2a6e-8b7d-4c55-9a0e-6d2b1f4e9a11', undefined, ACME_KEY);
    const [read, upload] = (await call('GET', '/__mock/journal?limit=2')).body;
    expect(upload).toMatchObject({
      path_template: '/api/v1/upload',
      request_media_type: 'application/json',
      request_shape: {
        name: 'string',
        size: 'integer',
        metadata: { plate: 'string', wells: ['integer', 'number'], nested: { ok: 'boolean', none: 'null' } },
      },
    });
    expect(JSON.stringify(upload.request_shape)).not.toContain('secret-name');
    expect(read).toMatchObject({
      path_template: '/api/v1/predict/{prediction_id}',
      request_media_type: null,
      request_shape: null,
    });
  });

  it('resets one organization without touching the others', async () => {
    const mine = await call('POST', '/api/v1/upload', { name: 'a.tif', size: 10 }, ACME_KEY);
    const theirs = await call('POST', '/api/v1/upload', { name: 'b.tif', size: 10 }, TINY_KEY);
    await call('POST', '/__mock/reset', { organization_id: TINY });
    expect((await call('GET', `/api/v1/upload/${mine.body.image.id}`, undefined, ACME_KEY)).status).toBe(200);
    expect((await call('GET', `/api/v1/upload/${theirs.body.image.id}`, undefined, TINY_KEY)).status).toBe(
      404,
    );
  });

  it('holds a prediction until it has been polled N times', async () => {
    const id = await predictionHeldForPolls(3);
    const statuses: string[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await call('GET', `/api/v1/predict/${id}`, undefined, ACME_KEY)).body.status);
    expect(statuses).toEqual(['STARTED', 'STARTED', 'COMPLETED', 'COMPLETED']);
  });

  it('forces the outcome of a prediction already running, and refuses one that has finished', async () => {
    const id = await predictionHeldForPolls(2);
    const poll = () => call('GET', `/api/v1/predict/${id}`, undefined, ACME_KEY);
    expect((await poll()).body.status).toBe('STARTED');
    const forced = await call('POST', '/__mock/predictions/outcomes', {
      prediction_id: id,
      status: 'FAILED',
      error: 'forced while it ran',
    });
    expect(forced.status).toBe(200);
    // the run's own result was ready: the forced failure replaces it
    expect((await poll()).body).toMatchObject({ status: 'FAILED', error: 'forced while it ran' });
    const again = await call('POST', '/__mock/predictions/outcomes', {
      prediction_id: id,
      status: 'COMPLETED',
    });
    expect(again.status).toBe(409);
    expect(again.body.detail).toContain('has already finished (FAILED)');
    expect((await poll()).body.status).toBe('FAILED');
  });

  it('ends a named prediction FAILED at once, without waiting for its run, which stops', async () => {
    await call('PUT', '/__mock/predictions/progress', {
      organization_id: ACME,
      start_delay_ms: 0,
      run_delay_ms: 600_000,
    });
    const id = (await predictOnNewImage()).body.prediction_id as string;
    const forced = await call('POST', '/__mock/predictions/outcomes', {
      prediction_id: id,
      status: 'FAILED',
      error: 'failed at once',
    });
    expect(forced.status).toBe(200);
    const read = await call('GET', `/api/v1/predict/${id}`, undefined, ACME_KEY);
    expect(read.body).toMatchObject({ status: 'FAILED', error: 'failed at once' });
    // Its ten-minute run was stopped, not left to run out.
    await mock.services.predictions.idle();
    expect((await call('GET', `/api/v1/predict/${id}`, undefined, ACME_KEY)).body.status).toBe('FAILED');
  });
});

/**
 * Waits until the prediction's outcome is computed, written and held for its polls, so that the
 * polls the test sends next are the ones that release it. Waited for, not slept on: the
 * segmentation child starts on demand, slowly on a busy machine.
 */
async function heldForPolls(predictionId: string): Promise<void> {
  expect(await eventually(() => mock.services.predictions.isHeldForPolls(predictionId), 60_000)).toBe(true);
}

/**
 * A prediction of ACME's whose segmentation has finished and which the organization's setting holds
 * for `polls` polls: only the polls the test sends next release it.
 */
async function predictionHeldForPolls(polls: number): Promise<string> {
  await call('PUT', '/__mock/predictions/progress', {
    organization_id: ACME,
    start_delay_ms: 0,
    run_delay_ms: 0,
    complete_after_polls: polls,
  });
  const ack = await predictOnNewImage();
  await heldForPolls(ack.body.prediction_id);
  return ack.body.prediction_id as string;
}

/** Uploads a small synthetic image and starts a prediction on it with the first model. */
async function predictOnNewImage() {
  const image = await apiClient(mock.url).uploadTiff(ACME_KEY);
  const models = await call('GET', '/api/v1/models', undefined, ACME_KEY);
  return call('POST', '/api/v1/predict', { image_id: image, model_id: models.body[0].id }, ACME_KEY);
}

describe('per-prediction progress', () => {
  it('is read when a run begins: a hold set on a prediction whose run is under way leaves that run, and the organization, as they were', async () => {
    await call('PUT', '/__mock/predictions/progress', {
      organization_id: ACME,
      start_delay_ms: 0,
      run_delay_ms: 1_000,
    });
    const ack = await predictOnNewImage();
    const id = ack.body.prediction_id as string;
    const started = async () => (await mock.services.state.predictions.get(id))?.status === 'STARTED';
    expect(await eventually(started, 60_000)).toBe(true);
    const held = await call('PUT', '/__mock/predictions/progress', {
      prediction_id: id,
      complete_after_polls: 2,
    });
    expect(held.body).toMatchObject({ prediction_id: id, organization_id: ACME, complete_after_polls: 2 });
    await mock.services.predictions.idle();
    // Under way when the hold was set: it read its plan without one, so its first poll answers the outcome.
    expect((await call('GET', `/api/v1/predict/${id}`, undefined, ACME_KEY)).body.status).toBe('COMPLETED');
    const org = await call('PUT', '/__mock/predictions/progress', { organization_id: ACME });
    expect(org.body.complete_after_polls).toBeUndefined();
  });

  it('answers 404 for an unknown prediction', async () => {
    const response = await call('PUT', '/__mock/predictions/progress', {
      prediction_id: '00000000-0000-4000-8000-000000000000',
      run_delay_ms: 0,
    });
    expect(response.status).toBe(404);
  });
});
