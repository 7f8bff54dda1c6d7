import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { assign, type Json } from '@hyperjump/json-pointer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../mock-server/config.js';
import { planParts } from '../mock-server/domain/images/upload-plan.js';
import type { RunningMock } from '../mock-server/server.js';
import { exampleOf, resolve } from '../test-support/document-walk/document-operations.js';
import { startInstantMock } from '../test-support/instant-mock.js';
import { REPO_ROOT } from '../test-support/launched-mock.js';
import { PUBLIC_DOCUMENT, readDocument, requestMediaTypes } from './documents.js';

/**
 * The limits the document states are the ones the mock enforces, both ways: every `maxItems`,
 * `maxLength` and `maximum` of a JSON request body is walked (at the limit the request is not
 * refused for that field; one past it, 422 names the field), and so are the body-wide limits of
 * `x-json-body-limits` (size, depth, keys), which must also be the mock's defaults.
 */
type Node = Record<string, unknown>;
const document = readDocument(PUBLIC_DOCUMENT) as Node;
const seed = JSON.parse(readFileSync(path.join(REPO_ROOT, 'fixtures', 'seed.json'), 'utf8')) as {
  organizations: Array<{ api_keys: string[] }>;
};
const defaults = loadConfig([], {}, {});
const bodyLimits = document['x-json-body-limits'] as {
  max_bytes: number;
  max_depth: number;
  max_keys: number;
};

interface Bound {
  operation: string;
  method: string;
  path: string;
  example: unknown;
  pointer: string;
  field: string;
  keyword: 'maxItems' | 'maxLength' | 'maximum';
  limit: number;
  item?: unknown;
}

/** Every bounded field of every JSON request body, with the example its requests start from. */
function bounds(): Bound[] {
  const found: Bound[] = [];
  for (const [route, rawItem] of Object.entries(document.paths as Node)) {
    for (const [method, rawOp] of Object.entries(resolve(document, rawItem))) {
      const op = resolve(document, rawOp);
      const media = requestMediaTypes(op.requestBody ? resolve(document, op.requestBody) : undefined)[
        'application/json'
      ];
      if (!media) continue;
      const example = exampleOf(document, media);
      const visit = (schema: Node, pointer: string, field: string, sample: unknown) => {
        for (const keyword of ['maxItems', 'maxLength', 'maximum'] as const)
          if (typeof schema[keyword] === 'number')
            found.push({
              operation: String(op.operationId),
              method: method.toUpperCase(),
              path: route,
              example,
              pointer,
              field,
              keyword,
              limit: schema[keyword],
              item: Array.isArray(sample) ? sample[0] : undefined,
            });
        for (const [name, property] of Object.entries((schema.properties ?? {}) as Node))
          visit(
            resolve(document, property),
            `${pointer}/${name}`,
            name,
            (sample as Node | undefined)?.[name],
          );
        if (schema.items)
          visit(
            resolve(document, schema.items),
            `${pointer}/0`,
            field,
            (sample as unknown[] | undefined)?.[0],
          );
      };
      visit(resolve(document, media.schema), '', 'body', example);
    }
  }
  return found;
}

function valueAt(bound: Bound, limit: number): unknown {
  if (bound.keyword === 'maxItems')
    return Array.from({ length: limit }, () => structuredClone(bound.item ?? {}));
  if (bound.keyword === 'maxLength') return 'a'.repeat(limit);
  return limit;
}

let mock: RunningMock;
beforeAll(async () => {
  mock = await startInstantMock();
});
afterAll(() => mock?.close());

async function send(method: string, route: string, body: string) {
  const response = await fetch(`${mock.url}${route.replace(/\{[^}]+\}/g, () => randomUUID())}`, {
    method,
    headers: {
      authorization: `Bearer ${seed.organizations[0].api_keys[0]}`,
      'content-type': 'application/json',
    },
    body,
  });
  return { status: response.status, detail: ((await response.json()) as { detail?: unknown }).detail };
}

/** Whether a 422's detail (an array of `loc`s or a sentence) names the field. */
function names(detail: unknown, field: string): boolean {
  if (Array.isArray(detail)) return detail.some((item: { loc?: unknown[] }) => item.loc?.includes(field));
  return typeof detail === 'string' && detail.includes(field);
}

describe('the limits of the document are the limits of the mock', () => {
  const all = bounds();

  it('finds the bounded fields of every JSON request body', () => {
    expect(all.map((b) => `${b.operation} ${b.pointer} ${b.keyword} ${b.limit}`)).toEqual(
      expect.arrayContaining([
        'completeUpload /parts maxItems 512',
        'completeUpload /parts/0/part_number maximum 512',
        'createImage /name maxLength 255',
        `createImage /size maximum ${defaults.maxUploadBytes}`,
        `uploadImage /size maximum ${defaults.maxUploadBytes}`,
      ]),
    );
  });

  it.each(all.map((bound) => [`${bound.operation} ${bound.pointer} ${bound.keyword}`, bound] as const))(
    '%s: accepted at the limit, refused with 422 naming the field one past it',
    async (_, bound) => {
      for (const [limit, refused] of [
        [bound.limit, false],
        [bound.limit + 1, true],
      ] as const) {
        const body = structuredClone((bound.example ?? {}) as Json);
        assign(bound.pointer, body, valueAt(bound, limit) as Json);
        const answer = await send(bound.method, bound.path, JSON.stringify(body));
        const label = `${bound.field} = ${limit}${bound.keyword === 'maxItems' ? ' items' : ''}`;
        if (refused) {
          expect(answer.status, label).toBe(422);
          expect(names(answer.detail, bound.field), `${label}: ${JSON.stringify(answer.detail)}`).toBe(true);
        } else {
          // Not refused by any limit: neither too large nor invalid (an unknown id's 404 is fine).
          expect([413, 422], `${label}: ${JSON.stringify(answer.detail)}`).not.toContain(answer.status);
          expect(answer.status, label).toBeLessThan(500);
        }
      }
    },
  );

  it('a plan never has more parts than a complete may list', () => {
    const parts = all.find((b) => b.operation === 'completeUpload' && b.keyword === 'maxItems')!;
    const urls = resolve(document, (document.components as Node).schemas as Node).UploadPlan as Node;
    expect(((urls.properties as Node).urls as Node).maxItems).toBe(parts.limit);
    for (const size of [1, defaults.maxUploadBytes, 4 * defaults.maxUploadBytes])
      expect(planParts(size, defaults.minPartSize).partCount).toBeLessThanOrEqual(parts.limit);
  });

  it('states the body-wide limits the mock enforces by default', () => {
    expect(bodyLimits).toMatchObject({
      max_bytes: defaults.maxJsonBodyBytes,
      max_depth: defaults.maxJsonDepth,
      max_keys: defaults.maxJsonKeys,
    });
  });

  it('walks the body-wide limits with free-form metadata: size, keys, depth', async () => {
    const image = (metadata: unknown) => JSON.stringify({ name: 'limits.tif', size: 1, metadata });
    const nested = (levels: number): Node => (levels <= 1 ? {} : { a: nested(levels - 1) });
    const keys = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 0]));
    const padded = (bytes: number) => {
      const shell = image({ pad: '' });
      return image({ pad: 'p'.repeat(bytes - shell.length) });
    };
    // name, size and metadata are 3 keys; the body object is one level, metadata the second.
    const cases = [
      [
        'keys',
        image(keys(bodyLimits.max_keys - 3)),
        image(keys(bodyLimits.max_keys - 2)),
        'json_too_many_keys',
      ],
      [
        'depth',
        image(nested(bodyLimits.max_depth - 1)),
        image(nested(bodyLimits.max_depth)),
        'json_too_deep',
      ],
    ] as const;
    for (const [label, atLimit, pastLimit, type] of cases) {
      expect((await send('POST', '/api/v1/image', atLimit)).status, label).toBe(200);
      const refused = await send('POST', '/api/v1/image', pastLimit);
      expect(refused.status, label).toBe(422);
      expect(refused.detail, label).toEqual([expect.objectContaining({ loc: ['body'], type })]);
    }
    expect(Buffer.byteLength(padded(bodyLimits.max_bytes))).toBe(bodyLimits.max_bytes);
    expect((await send('POST', '/api/v1/image', padded(bodyLimits.max_bytes))).status).toBe(200);
    expect((await send('POST', '/api/v1/image', padded(bodyLimits.max_bytes + 1))).status).toBe(413);
  });
});
