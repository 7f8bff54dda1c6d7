import { expect } from 'vitest';
import { check } from '../harness/check.js';
import { throwawayOrganization } from '../harness/control-plane.js';
import { sharedContract } from '../harness/openapi-contract.js';
import { expectStatus, need } from '../harness/steps.js';

/**
 * The error statuses a run cannot cause by itself: the target's own limits (a body too large, a
 * rate limit), its storage failing or full, and the 403 complete and abort may answer. The control
 * plane injects each one (profile `control`), so the suite judges those answers as it judges the
 * rest: the document's status, media type, body and required headers (429's Retry-After).
 */
const INJECTED = ['403', '413', '415', '429', '503', '507'];

/** A value for each path parameter that routes: a uuid for ids, a token-shaped string otherwise. */
const pathValue = (name: string) =>
  name.endsWith('_id') ? '00000000-0000-4000-8000-000000000000' : 'AAAAAAAAAAAAAAAAAAAAAAAA';

check(
  'every error status the document lists for an operation answers its documented body and headers',
  { clauses: ['ERR-04'], requires: ['control'], timeout: 180_000 },
  async (ctx) => {
    // A throwaway organization, so a fault fires only for this check's own requests.
    const org = await throwawayOrganization(ctx, 'errors', {
      storage_cap_images: 5,
      monthly_analysis_cap: 5,
    });
    const admin = { key: ctx.target.adminToken ?? null, baseUrl: ctx.target.directBaseUrl };
    const contract = sharedContract();
    const cases = [...contract.operations.values()]
      .filter((op) => op.document === 'public' && op.secured)
      .flatMap((op) => op.statuses.filter((s) => INJECTED.includes(s)).map((status) => ({ op, status })));
    expect(cases.length, 'documented error statuses to inject').toBeGreaterThan(0);
    for (const { op, status } of cases) {
      need(
        await ctx.api.call('mockAddFault', {
          ...admin,
          body: { operation_id: op.operationId, status: Number(status), times: 1, organization_id: org.id },
        }),
        200,
      );
      const params = Object.fromEntries(op.pathParams.map((name) => [name, pathValue(name)]));
      const answer = await org.client.call<{ detail?: unknown }>(op.operationId, {
        params,
        injectedStatus: Number(status),
        ...(op.requestContentTypes.length ? { body: {} } : {}),
      });
      // The answer was validated against the document on the way in (body, media type, headers);
      // here: the status itself, and a detail a person can read.
      expectStatus(answer, Number(status), `${op.operationId} with an injected ${status}`);
      expect(typeof answer.body?.detail, `${op.operationId} ${status}: type of detail`).toBe('string');
    }
  },
);
