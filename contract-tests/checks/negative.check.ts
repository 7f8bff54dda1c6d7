import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { check } from '../harness/check.js';
import { expectStatus } from '../harness/steps.js';
import { sharedContract, type OperationSpec } from '../harness/openapi-contract.js';
import { expectFieldError } from '../harness/validation-items.js';

/**
 * Negative checks generated from the document: for every operation of the public API, requests
 * without or with bad credentials, bodies missing each required field, each field of the wrong
 * type, malformed JSON, a wrong content type and oversized input. Each must answer a documented
 * 4xx in the documented shape (the client validates every response), never a 5xx.
 */
const contract = sharedContract();
const operations = [...contract.operations.values()].filter(
  (op) => op.secured && !op.tags.includes('internal') && !op.tags.includes('mock-control'),
);

type Json = Record<string, unknown>;

function randomParams(op: OperationSpec): Record<string, string> {
  return Object.fromEntries(op.pathParams.map((name) => [name, randomUUID()]));
}

function jsonBodySchema(op: OperationSpec): Json | undefined {
  const body = op.raw.requestBody as Json | undefined;
  const content = (body ? contract.deref(body).content : undefined) as Record<string, Json> | undefined;
  const schema = content?.['application/json']?.schema as Json | undefined;
  return schema ? contract.deref(schema) : undefined;
}

/** A valid-looking body: every required property with a plausible value of its type. */
function plausibleBody(schema: Json): Json {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const body: Json = {};
  for (const name of (schema.required as string[] | undefined) ?? [])
    body[name] = plausibleValue(contract.deref(properties[name] ?? {}));
  return body;
}

function plausibleValue(schema: Json): unknown {
  if (schema.format === 'uuid') return randomUUID();
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'integer':
    case 'number':
      return (schema.minimum as number | undefined) ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return Array.isArray(schema.enum) ? schema.enum[0] : 'contract.tif';
  }
}

function wrongTypeValue(schema: Json): unknown {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return 12345;
    case 'integer':
    case 'number':
      return 'not-a-number';
    case 'boolean':
      return 'yes';
    case 'array':
      return 'not-a-list';
    case 'object':
      return ['not', 'an', 'object'];
    default:
      return undefined;
  }
}

function expectClientError(status: number, label: string): void {
  expect(status, label).toBeGreaterThanOrEqual(400);
  expect(status, label).toBeLessThan(500);
}

for (const op of operations) {
  check(
    `${op.operationId}: missing or bad credentials answer 401`,
    { clauses: ['AUTH-01', 'AUTH-02'], prismAnswersItself: true },
    async ({ api }) => {
      for (const key of [null, 'sk_test_unknown_key_000000000000000000', '!Token abc']) {
        const response = await api.call(op.operationId, { params: randomParams(op), key });
        expectStatus(response, 401, `key ${String(key)}`);
        // The document lists WWW-Authenticate on every 401; RFC 6750 (3) makes it the bearer challenge.
        expect(
          response.headers.get('www-authenticate'),
          `${op.operationId} 401 (key ${String(key)}): WWW-Authenticate`,
        ).toMatch(/^Bearer\b/i);
      }
    },
  );

  const schema = jsonBodySchema(op);
  if (!schema) continue;
  check(
    `${op.operationId}: malformed bodies answer a documented 4xx, never 5xx`,
    { clauses: ['VAL-05'], prismAnswersItself: true },
    async ({ api }) => {
      const params = randomParams(op);
      const valid = plausibleBody(schema);
      const properties = (schema.properties ?? {}) as Record<string, Json>;
      for (const name of (schema.required as string[] | undefined) ?? []) {
        const body = { ...valid };
        delete body[name];
        const response = await api.call(op.operationId, { params, body });
        expectStatus(response, 422, `without ${name}`);
        const detail = (response.body as { detail: unknown }).detail;
        if (Array.isArray(detail)) expectFieldError(detail, name, `${op.operationId} without ${name}`);
        else expect(JSON.stringify(response.body), `detail names ${name}`).toContain(name);
      }
      for (const [name, property] of Object.entries(properties)) {
        const wrong = wrongTypeValue(contract.deref(property));
        if (wrong === undefined) continue;
        const response = await api.call(op.operationId, { params, body: { ...valid, [name]: wrong } });
        expectStatus(response, 422, `${name} of the wrong type`);
        const detail = (response.body as { detail: unknown }).detail;
        if (Array.isArray(detail))
          expectFieldError(detail, name, `${op.operationId} ${name} of the wrong type`, wrong);
      }
      const malformed = await api.call(op.operationId, {
        params,
        rawBody: '{"truncated": ',
        headers: { 'content-type': 'application/json' },
      });
      expectStatus(malformed, 422, 'malformed JSON');
      const wrongType = await api.call(op.operationId, {
        params,
        rawBody: 'name=x',
        headers: { 'content-type': 'text/plain' },
      });
      expectClientError(wrongType.status, 'text/plain body');
      const huge = await api.call(op.operationId, {
        params,
        body: { ...valid, padding: 'x'.repeat(2 * 1024 * 1024) },
      });
      expectClientError(huge.status, '2 MB body');
    },
  );
}

check('a path id of 5000 characters answers 4xx, never 5xx', { clauses: ['VAL-01'] }, async ({ api }) => {
  const response = await api.raw('GET', `/api/v1/upload/${'a'.repeat(5000)}`);
  expectClientError(response.status, 'long id');
});
