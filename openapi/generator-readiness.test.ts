import { describe, expect, it } from 'vitest';
import { CONTROL_DOCUMENT, PUBLIC_DOCUMENT, readDocument } from './documents.js';

/**
 * What client generators need from the public document, each a rule that a generator broke on
 * before: only the public interface, `servers` as variables, one request media type per operation,
 * binary bodies marked `format: binary`, and links they can follow.
 */
type Json = Record<string, unknown>;
const publicDoc = readDocument(PUBLIC_DOCUMENT) as Json & { paths: Record<string, Record<string, Json>> };
const controlDoc = readDocument(CONTROL_DOCUMENT) as Json & { paths: Record<string, Record<string, Json>> };
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function operations(doc: typeof publicDoc): Array<{ route: string; method: string; op: Json }> {
  return Object.entries(doc.paths).flatMap(([route, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ route, method, op })),
  );
}

function resolve(doc: Json, node: Json): Json {
  let current = node;
  while (typeof current.$ref === 'string' && current.$ref.startsWith('#/'))
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, key) => (at as Json)[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc) as Json;
  return current;
}

/** Every schema node below `node`, with where it sits. */
function* schemasUnder(node: unknown, where: string): Generator<[string, Json]> {
  if (!node || typeof node !== 'object') return;
  if ('type' in (node as Json)) yield [where, node as Json];
  for (const [key, value] of Object.entries(node as Json)) yield* schemasUnder(value, `${where}/${key}`);
}

describe('the public document, as client generators read it', () => {
  it('holds only the public interface: /api/v1 and the share pages, no control plane or internal endpoint', () => {
    const routes = Object.keys(publicDoc.paths);
    expect(routes.filter((r) => !r.startsWith('/api/v1/') && !r.startsWith('/share/'))).toEqual([]);
    expect(operations(publicDoc).filter(({ op }) => (op.tags as string[]).includes('internal'))).toEqual([]);
    expect(JSON.stringify(publicDoc)).not.toContain('mockAdmin');
  });

  it('leaves the control plane and the internal endpoints to mock-control.yaml', () => {
    const routes = Object.keys(controlDoc.paths);
    expect(routes.filter((r) => !r.startsWith('/__mock/'))).toEqual([
      '/api/v1/api-keys',
      '/api/v1/organizations',
      '/api/v1/models/{model_id}/train',
      // Where a Prometheus scrapes unless told otherwise.
      '/metrics',
    ]);
    expect(routes.filter((r) => r in publicDoc.paths)).toEqual([]);
  });

  it("shares the public document's error bodies instead of copying them", () => {
    const refs = [...JSON.stringify(controlDoc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]);
    for (const ref of refs.filter((r) => r.startsWith('./openapi.yaml#'))) {
      expect(resolve(publicDoc, { $ref: ref.slice('./openapi.yaml'.length) }), ref).toBeTruthy();
    }
    expect(refs).toContain('./openapi.yaml#/components/schemas/ErrorString');
    const own = (controlDoc.components as Record<string, Json>).schemas ?? {};
    expect(
      Object.keys(own).filter((name) => name in ((publicDoc.components as Json).schemas as Json)),
    ).toEqual([]);
  });

  it('names its servers by variables: {base_url} (the local mock by default) and staging', () => {
    const servers = publicDoc.servers as Array<{
      url: string;
      variables?: Record<string, { default: string }>;
    }>;
    expect(servers.map((s) => s.url)).toEqual(['{base_url}', '{staging_base_url}']);
    expect(servers[0].variables?.base_url.default).toMatch(/^http:\/\/(127\.0\.0\.1|localhost):\d+$/);
    expect(servers[1].variables?.staging_base_url.default).toBeTruthy();
  });

  it('gives every request body one media type', () => {
    const several = operations(publicDoc)
      .filter(({ op }) => op.requestBody)
      .filter(
        ({ op }) => Object.keys(resolve(publicDoc, op.requestBody as Json).content as Json).length !== 1,
      )
      .map(({ op }) => op.operationId);
    expect(several).toEqual([]);
  });

  it('marks every binary schema (file parts, images, archives) format: binary', () => {
    const unmarked = [...schemasUnder(publicDoc, '#')]
      .filter(([, schema]) => schema.type === 'string' && typeof schema.contentMediaType === 'string')
      .filter(([, schema]) => schema.format !== 'binary')
      .map(([where]) => where);
    expect(unmarked).toEqual([]);
    const binaryResponses = operations(publicDoc).flatMap(({ op }) =>
      Object.values(op.responses as Record<string, Json>).flatMap((response) =>
        Object.entries((resolve(publicDoc, response).content ?? {}) as Record<string, Json>)
          .filter(([media]) => /^(image\/png|application\/zip)$/.test(media))
          .map(([, body]) => (body.schema as Json).format),
      ),
    );
    expect(binaryResponses.length).toBeGreaterThanOrEqual(3);
    expect(new Set(binaryResponses)).toEqual(new Set(['binary']));
  });

  it('links upload to predict, predict to its status, the status to each export and share, share to revoke', () => {
    const byId = new Map(operations(publicDoc).map((o) => [String(o.op.operationId), o]));
    const targets = (operationId: string) => {
      const ok = resolve(
        publicDoc,
        (byId.get(operationId)!.op.responses as Record<string, Json>)['200'] ?? {},
      );
      return Object.values((ok.links ?? {}) as Record<string, Json>).map((link) => resolve(publicDoc, link));
    };
    const chain: Record<string, string[]> = {
      uploadImage: ['createPrediction', 'getUpload', 'getImage'],
      createImage: ['getUpload', 'getImage', 'completeUpload', 'abortUpload', 'createPrediction'],
      createPrediction: ['getPrediction'],
      getPrediction: [
        'exportOverlayPng',
        'exportMeasurementsCsv',
        'exportRoisGeojson',
        'exportRoisZip',
        'createShare',
      ],
      createShare: ['getShare', 'revokeShare'],
    };
    for (const [from, to] of Object.entries(chain))
      expect(targets(from).map((l) => l.operationId)).toEqual(expect.arrayContaining(to));

    // every link names an operation of this document, and only path parameters it has
    for (const [from, { op }] of byId) {
      const ok = resolve(publicDoc, (op.responses as Record<string, Json>)['200'] ?? {});
      for (const link of targets(from)) {
        const target = byId.get(String(link.operationId));
        expect(target, `${from} -> ${String(link.operationId)}`).toBeDefined();
        const names = [...target!.route.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        for (const name of Object.keys((link.parameters ?? {}) as Json)) expect(names).toContain(name);
        // A value is read from the answer, or is a documented example id (a seeded model) that any
        // tool can send as it is.
        for (const expression of Object.values({
          ...(link.parameters as Json),
          ...(link.requestBody as Json),
        }))
          expect(String(expression)).toMatch(/^(\$response\.body#\/[a-z0-9_/]+|[0-9a-f]{8}-[0-9a-f-]{27})$/);
        expect(ok.content).toBeDefined();
      }
    }
  });
});
