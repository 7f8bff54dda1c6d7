import { expect } from 'vitest';
import { check } from '../harness/check.js';
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
      expect(response.status).toBe(422);
      const detail = (response.body as { detail: unknown }).detail;
      if (op.validationStyle === 'string') {
        expect(typeof detail).toBe('string');
        expect(detail).toContain('not-a-uuid');
      } else {
        expect(Array.isArray(detail)).toBe(true);
        const item = (detail as Array<{ loc: string[]; type: string; input: unknown }>)[0];
        expect(item.loc).toEqual(['path', op.pathParams[0]]);
        expect(item.input).toBe('not-a-uuid');
      }
    },
  );
}
