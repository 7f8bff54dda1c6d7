import { expect } from 'vitest';
import { check } from '../harness/check.js';
import { expectStatus } from '../harness/steps.js';
import { sharedContract } from '../harness/openapi-contract.js';

/** Every operation of the document that takes a UUID in its path, found by reading the document. */
const contract = sharedContract();
const withPathIds = [...contract.operations.values()].filter(
  (op) =>
    op.secured &&
    op.pathParams.length > 0 &&
    !op.tags.includes('internal') &&
    !op.tags.includes('mock-control'),
);

for (const op of withPathIds) {
  check(
    `${op.operationId}: a non-UUID path id answers 422 in the documented shape`,
    { clauses: ['VAL-01', 'VAL-02', 'VAL-03'] },
    async ({ api }) => {
      const params = Object.fromEntries(op.pathParams.map((name) => [name, 'not-a-uuid']));
      const response = await api.call(op.operationId, {
        params,
        body: op.requestContentTypes.includes('application/json') ? {} : undefined,
      });
      expectStatus(response, 422, `${op.pathParams[0]} 'not-a-uuid'`);
      const detail = (response.body as { detail: unknown }).detail;
      const what = `${op.operationId} 422: detail`;
      if (op.validationStyle === 'string') {
        expect(typeof detail, `${what}, its type`).toBe('string');
        expect(detail, `${what} names the value sent`).toContain('not-a-uuid');
      } else {
        expect(detail, `${what}, an array of items (${JSON.stringify(detail)})`).toBeInstanceOf(Array);
        const item = (detail as Array<{ loc: string[]; type: string; input: unknown }>)[0];
        expect(item?.loc, `${what}[0].loc`).toEqual(['path', op.pathParams[0]]);
        expect(item?.input, `${what}[0].input`).toBe('not-a-uuid');
      }
    },
  );
}
