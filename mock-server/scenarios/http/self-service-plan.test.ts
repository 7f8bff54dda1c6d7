import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ACME_KEY, ACME_ORG, BETA_KEY, apiClient, seed } from '../../../test-support/api-client.js';
import { responseViolations } from '../../../test-support/document-responses.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import type { RunningMock } from '../../server.js';

const ADMIN = 'admin-secret-token';
const BETA_ORG = seed.organizations[1].id as string;

let mock: RunningMock;
const call = (method: string, path: string, body: unknown, key: string | null) =>
  apiClient(mock.url).call(method, path, body, key);

beforeAll(async () => {
  mock = await startInstantMock({ adminToken: ADMIN });
});
afterAll(() => mock.close());
beforeEach(async () => {
  expect((await call('POST', '/__mock/reset', undefined, ADMIN)).status).toBe(200);
});

async function documented(operationId: string, method: string, path: string, body: unknown, key: string) {
  const answer = await call(method, path, body, key);
  expect(
    responseViolations(operationId, answer.status, answer.headers.get('content-type'), answer.text),
  ).toEqual([]);
  return answer;
}

describe('an organization sets its own caps where the operator allows it', () => {
  it('is refused (403) until the operator sets bounds, and reads null bounds meanwhile', async () => {
    const read = await documented('mockOrgGetPlan', 'GET', '/__mock/org/plan', undefined, ACME_KEY);
    expect(read.status).toBe(200);
    expect(read.body.bounds).toBeNull();
    const refused = await documented(
      'mockOrgSetPlan',
      'PUT',
      '/__mock/org/plan',
      { storage_cap_images: 3, monthly_analysis_cap: 3 },
      ACME_KEY,
    );
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/has not allowed this organization/);
  });

  it('sets caps within the bounds, and is refused (403, naming the bound) past one', async () => {
    const bounds = { storage_cap_images: 10, monthly_analysis_cap: 20 };
    const allowed = await documented(
      'mockSetPlanBounds',
      'PUT',
      `/__mock/organizations/${ACME_ORG}/plan-bounds`,
      bounds,
      ADMIN,
    );
    expect(allowed.status).toBe(200);
    expect(allowed.body.bounds).toEqual(bounds);
    const set = await documented(
      'mockOrgSetPlan',
      'PUT',
      '/__mock/org/plan',
      { storage_cap_images: 1, monthly_analysis_cap: 20 },
      ACME_KEY,
    );
    expect(set.status).toBe(200);
    expect(set.body.plan).toMatchObject({ storage_cap_images: 1, monthly_analysis_cap: 20 });
    // The cap it gave itself holds: a second image is refused.
    const acme = apiClient(mock.url, ACME_KEY);
    await acme.uploadTiff();
    await expect(acme.uploadTiff()).rejects.toThrow(/402/);
    const past = await call(
      'PUT',
      '/__mock/org/plan',
      { storage_cap_images: 11, monthly_analysis_cap: 1 },
      ACME_KEY,
    );
    expect(past.status).toBe(403);
    expect(past.body.detail).toMatch(/storage_cap_images: the operator allows this organization at most 10/);
    expect((await call('GET', '/__mock/org/plan', undefined, ACME_KEY)).body.plan.storage_cap_images).toBe(1);
  });

  it("never reaches another organization's plan, and the operator's bounds route is the operator's", async () => {
    await call(
      'PUT',
      `/__mock/organizations/${ACME_ORG}/plan-bounds`,
      { storage_cap_images: 9, monthly_analysis_cap: 9 },
      ADMIN,
    );
    // Beta has no bounds of its own: Acme's leave is not Beta's.
    expect(
      (await call('PUT', '/__mock/org/plan', { storage_cap_images: 1, monthly_analysis_cap: 1 }, BETA_KEY))
        .status,
    ).toBe(403);
    const keyOnOperatorRoute = await call(
      'PUT',
      `/__mock/organizations/${BETA_ORG}/plan-bounds`,
      { storage_cap_images: 9, monthly_analysis_cap: 9 },
      ACME_KEY,
    );
    expect(keyOnOperatorRoute.status).toBe(403);
    expect((await call('PUT', `/__mock/organizations/${BETA_ORG}/plan-bounds`, {}, null)).status).toBe(401);
    const beta = await call('GET', `/__mock/organizations`, undefined, ADMIN);
    const betaPlan = (beta.body as Array<{ id: string; plan: unknown }>).find((o) => o.id === BETA_ORG)!.plan;
    expect(betaPlan).toMatchObject({ storage_cap_images: 50, monthly_analysis_cap: 200 });
  });

  it('is refused again once the operator withdraws the bounds; the caps set stay', async () => {
    await call(
      'PUT',
      `/__mock/organizations/${ACME_ORG}/plan-bounds`,
      { storage_cap_images: 9, monthly_analysis_cap: 9 },
      ADMIN,
    );
    expect(
      (await call('PUT', '/__mock/org/plan', { storage_cap_images: 4, monthly_analysis_cap: 5 }, ACME_KEY))
        .status,
    ).toBe(200);
    const withdrawn = await documented(
      'mockRemovePlanBounds',
      'DELETE',
      `/__mock/organizations/${ACME_ORG}/plan-bounds`,
      undefined,
      ADMIN,
    );
    expect(withdrawn.body).toMatchObject({
      bounds: null,
      plan: { storage_cap_images: 4, monthly_analysis_cap: 5 },
    });
    expect(
      (await call('PUT', '/__mock/org/plan', { storage_cap_images: 2, monthly_analysis_cap: 2 }, ACME_KEY))
        .status,
    ).toBe(403);
    expect(
      (
        await call(
          'DELETE',
          `/__mock/organizations/00000000-0000-4000-8000-000000000000/plan-bounds`,
          undefined,
          ADMIN,
        )
      ).status,
    ).toBe(404);
  });
});
