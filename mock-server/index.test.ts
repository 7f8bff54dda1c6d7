import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type RunningMockInstance } from './index.js';

/** One GET of the public API with a key, answering status and parsed body. */
async function get(mock: RunningMockInstance, path: string, key = mock.apiKey) {
  const response = await fetch(`${mock.apiUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

describe('startMock', () => {
  let one: RunningMockInstance;
  let two: RunningMockInstance;
  beforeAll(async () => {
    [one, two] = await Promise.all([startMock(), startMock({ adminToken: 'second-admin' })]);
  });
  afterAll(async () => {
    await Promise.all([one?.close(), two?.close()]);
  });

  it('starts on a free port with the seeded keys and models', async () => {
    expect(one.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(one.baseUrl).not.toBe(two.baseUrl);
    expect(one.apiKey).toBe(one.organizations[0].apiKeys[0]);
    const models = await get(one, '/models');
    expect(models.status).toBe(200);
    const seededVisible = one.models.filter(
      (m) => m.scope === 'base' || m.organizationId === one.organizations[0].id,
    );
    expect((models.body as Array<{ id: string }>).map((m) => m.id).sort()).toEqual(
      seededVisible.map((m) => m.id).sort(),
    );
  });

  it('keeps instances apart: what one is told, the other never sees', async () => {
    const org = one.organizations[0].id;
    await one.setPlanCaps(org, { name: 'tiny', storage_cap_images: 0, monthly_analysis_cap: 0 });
    const faultId = await one.setFault({ operation_id: 'listModels', status: 503, times: 1 });
    expect(faultId).toMatch(/[0-9a-f-]{36}/);
    expect((await get(one, '/models')).status).toBe(503);
    expect((await get(two, '/models')).status).toBe(200);
    const plans = async (mock: RunningMockInstance) =>
      (
        (await mock.control('GET', '/__mock/organizations')) as Array<{ id: string; plan: { name: string } }>
      ).find((o) => o.id === org)?.plan.name;
    expect(await plans(one)).toBe('tiny');
    expect(await plans(two)).not.toBe('tiny');
  });

  it('sends the admin token its instance was started with', async () => {
    const raw = await fetch(`${two.baseUrl}/__mock/organizations`);
    expect(raw.status).toBe(401);
    expect(Array.isArray(await two.control('GET', '/__mock/organizations'))).toBe(true);
  });

  it('advances the clock and resets to the seed', async () => {
    const before = (await one.control('GET', '/__mock/clock')) as { now: string };
    await one.advanceClock(86_400_000);
    const after = (await one.control('GET', '/__mock/clock')) as { now: string };
    expect(Date.parse(after.now) - Date.parse(before.now)).toBeGreaterThanOrEqual(86_400_000);
    await one.reset();
    const reset = (await one.control('GET', '/__mock/clock')) as { now: string };
    expect(Date.parse(reset.now)).toBeLessThan(Date.parse(after.now));
    expect(one.organizations[0].plan.name).not.toBe('tiny');
  });

  it('names the control call that failed', async () => {
    await expect(one.failPrediction('00000000-0000-4000-8000-000000000000')).rejects.toThrow(
      /POST \/__mock\/predictions\/outcomes answered 404/,
    );
  });
});
