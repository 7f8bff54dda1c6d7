import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME_ORG } from '../../../test-support/api-client.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import type { RunningMock } from '../../server.js';

const KEY = 'sk_test_acme_4f9a1c7e2b8d4a6f9c3e5b7d1a2c4e6f';
let mock: RunningMock;
beforeAll(async () => {
  mock = await startInstantMock();
});
afterAll(() => mock.close());

async function send(method: string, path: string, body?: unknown, key?: string) {
  const response = await fetch(mock.url + path, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('numeric control-plane inputs are range-checked before anything changes', () => {
  it.each([
    [{ advance_ms: 1e20 }, /advance_ms/],
    [{ advance_ms: -1 }, /advance_ms/],
    [{ now: '9999-01-01T00:00:00Z', advance_ms: 1000 }, /advance_ms: 1000 would move the clock past/],
    [{ now: '9999-12-31T23:59:59Z' }, /now: '9999-12-31T23:59:59Z' is outside/],
    [{ now: '1969-12-31T23:59:59Z' }, /now: '1969-12-31T23:59:59Z' is outside/],
    [{ reset: true, now: '1960-01-01T00:00:00Z' }, /now:/],
  ])(
    'POST /__mock/clock %j answers 422 naming the field, and the clock and uploads are as before',
    async (body, detail) => {
      const before = await send('GET', '/__mock/clock');
      const refused = await send('POST', '/__mock/clock', body);
      expect(refused.status).toBe(422);
      expect(String(refused.body.detail)).toMatch(detail);
      const after = await send('GET', '/__mock/clock');
      expect(after.status).toBe(200);
      expect(after.body.offset_ms).toBe(before.body.offset_ms);
      const upload = await send('POST', '/api/v1/upload', { name: 'after.tif', size: 10 }, KEY);
      expect(upload.status).toBe(200);
    },
  );

  it('accepts the latest time it can be set to, a year before dates stop having a date-time form', async () => {
    const moved = await send('POST', '/__mock/clock', { now: '9999-01-01T00:00:00.000Z' });
    expect(moved.status).toBe(200);
    expect(moved.body.now).toMatch(/^9999-01-01T00:00:00\.\d{3}Z$/);
    expect((await send('POST', '/api/v1/upload', { name: 'late.tif', size: 10 }, KEY)).status).toBe(200);
    expect((await send('POST', '/__mock/clock', { reset: true })).status).toBe(200);
  });

  it.each([{ start_delay_ms: 1e20 }, { run_delay_ms: 86_400_001 }, { complete_after_polls: 1e9 }])(
    'PUT /__mock/predictions/progress %j answers 422 and keeps the settings',
    async (body) => {
      const before = await send('PUT', '/__mock/predictions/progress', {});
      const refused = await send('PUT', '/__mock/predictions/progress', body);
      expect(refused.status).toBe(422);
      expect(String(refused.body.detail)).toContain(Object.keys(body)[0]);
      expect(await send('PUT', '/__mock/predictions/progress', {})).toEqual(before);
    },
  );
});

describe('caps and counts past what the state tables read back as numbers', () => {
  const ACME = 'bf4d51a1-7a32-4109-b955-46a2a3ad11f0';
  // 2^53 is stored as an integer that reads back past Number.MAX_SAFE_INTEGER: the write
  // itself succeeded and its read failed, a 500.
  const huge = 2 ** 53;
  it.each([
    [
      'PUT',
      `/__mock/organizations/${ACME}/plan`,
      { name: 'x', storage_cap_images: huge, monthly_analysis_cap: 1 },
    ],
    [
      'PUT',
      `/__mock/organizations/${ACME}/plan`,
      { name: 'x', storage_cap_images: 1, monthly_analysis_cap: huge },
    ],
    ['PUT', `/__mock/organizations/${ACME}/usage`, { analyses_this_month: huge }],
    [
      'POST',
      '/__mock/organizations',
      { name: 'n', plan: { name: 'p', storage_cap_images: huge, monthly_analysis_cap: 1 } },
    ],
  ])(
    '%s %s %j answers 422 naming the field, and the organizations are as before',
    async (method, path, body) => {
      const before = await send('GET', '/__mock/organizations');
      const refused = await send(method, path, body);
      expect(refused.status).toBe(422);
      expect(String(refused.body.detail)).toMatch(
        /(storage_cap_images|monthly_analysis_cap|analyses_this_month): .*2147483647/,
      );
      expect(await send('GET', '/__mock/organizations')).toEqual(before);
    },
  );
});

it('POST /__mock/faults with times past a 32-bit integer answers 422 naming it, and adds no fault', async () => {
  // PostgreSQL keeps `times` in an integer column: past it the insert failed, a 500.
  const before = await send('GET', '/__mock/faults');
  const refused = await send('POST', '/__mock/faults', {
    operation_id: 'getPrediction',
    status: 503,
    times: 2 ** 31,
  });
  expect(refused.status).toBe(422);
  expect(String(refused.body.detail)).toMatch(/times: .*2147483647/);
  expect(await send('GET', '/__mock/faults')).toEqual(before);
});

describe('a custom model is refused by field when the threshold segmenter could not run on it', () => {
  it.each([
    [{ sigma: 'x' }, /invalid sigma x/],
    [{ sigma: 11 }, /invalid sigma 11/],
    [{ polarity: 'sideways' }, /invalid polarity "sideways"/],
    [{ splitTouching: 'yes' }, /invalid splitTouching/],
    [{ minAreaPx: 10, maxAreaPx: 5 }, /invalid maxAreaPx 5/],
  ])('params %j: 422 naming it, and no model added', async (params, detail) => {
    const before = await send('GET', `/__mock/organizations/${ACME_ORG}/models`);
    const refused = await send('POST', `/__mock/organizations/${ACME_ORG}/models`, {
      name: 'bad-params',
      engine: 'threshold',
      params,
    });
    expect(refused.status).toBe(422);
    expect(String(refused.body.detail)).toMatch(detail);
    expect(await send('GET', `/__mock/organizations/${ACME_ORG}/models`)).toEqual(before);
  });
});

it('POST a remote model waiting longer than a timer can answers 422 naming timeout_ms, and adds no model', async () => {
  // Taken before: every prediction on the model then failed at once ("The value of "delay" is out of range").
  const before = await send('GET', `/__mock/organizations/${ACME_ORG}/models`);
  const refused = await send('POST', `/__mock/organizations/${ACME_ORG}/models`, {
    name: 'slow-worker',
    engine: 'remote',
    url: 'http://127.0.0.1:9/segment',
    timeout_ms: 2 ** 31,
  });
  expect(refused.status).toBe(422);
  expect(String(refused.body.detail)).toMatch(/timeout_ms: .*2147483647/);
  expect(await send('GET', `/__mock/organizations/${ACME_ORG}/models`)).toEqual(before);
});

describe("an organization's forced outcomes are bounded", () => {
  it('an error past 2000 characters answers 422 and queues nothing', async () => {
    const tiny = 'sk_test_tiny_1a3c5e7b9d2f4a6c8e0b1d3f5a7c9e2b';
    const long = { status: 'FAILED', error: 'x'.repeat(2001) };
    const refused = await send('POST', '/__mock/org/predictions/outcomes', long, tiny);
    expect(refused.status).toBe(422);
    expect(String(refused.body.detail)).toMatch(/error/);
    const atLimit = { status: 'FAILED', error: 'x'.repeat(2000) };
    expect((await send('POST', '/__mock/org/predictions/outcomes', atLimit, tiny)).status).toBe(200);
    expect((await send('POST', '/__mock/org/reset', undefined, tiny)).status).toBe(200);
  });
});
