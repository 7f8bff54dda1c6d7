import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillPath } from '../contract-tests/harness/api-client.js';
import { startPrism, type Running } from '../contract-tests/harness/child-processes.js';
import { OPENAPI_FILE, OpenApiContract } from '../contract-tests/harness/openapi-contract.js';

/** Prism 5.14.2's spec-only mock starts on the public document and answers every operation from its examples. */
describe('Prism mock of the document', () => {
  const contract = new OpenApiContract(OPENAPI_FILE);
  let prism: Running;

  beforeAll(async () => {
    prism = await startPrism('mock');
  }, 180_000);
  afterAll(() => prism?.stop());

  for (const op of contract.operations.values()) {
    it(`answers ${op.operationId} (${op.method} ${op.path}) with a documented status`, async () => {
      const params = Object.fromEntries(
        op.pathParams.map((p) => [p, p === 'share_token' ? 'q1w2e3r4t5y6u7i8o9p0a1s2' : randomUUID()]),
      );
      const requestBody = op.raw.requestBody
        ? contract.deref(op.raw.requestBody as Record<string, unknown>)
        : undefined;
      const json = (requestBody?.content as Record<string, { example?: unknown }> | undefined)?.[
        'application/json'
      ];
      const response = await fetch(prism.url + fillPath(op.path, params), {
        method: op.method,
        headers: {
          authorization: 'Bearer sk_test_prism',
          ...(json ? { 'content-type': 'application/json' } : {}),
        },
        body: json ? JSON.stringify(json.example ?? {}) : undefined,
      });
      await response.arrayBuffer();
      expect(response.status).toBeLessThan(500);
      expect(op.statuses).toContain(String(response.status));
    });
  }
});
