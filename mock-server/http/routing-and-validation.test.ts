import { beforeAll, describe, expect, it } from 'vitest';
import type { DocumentOperation } from './document-operation.js';
import { documentOperations } from './document-operations.js';
import { RouteTable, operationRoutes, slashCount } from './route-table.js';
import { RequestValidator } from './request-validator.js';

let operations: DocumentOperation[];
beforeAll(async () => {
  operations = documentOperations();
});

describe('RouteTable', () => {
  it('routes by method and path, decoding path parameters', () => {
    const routes = new RouteTable(operationRoutes(operations));
    const found = routes.match('GET', '/api/v1/upload/abc%20def');
    expect(found.operation?.operationId).toBe('getUpload');
    expect('params' in found && found.params).toEqual({ image_id: 'abc def' });
    expect(routes.match('POST', '/api/v1/upload/x/complete').operation?.operationId).toBe('completeUpload');
    expect(routes.match('GET', '/api/v1/image').operation).toBeUndefined();
  });

  it('tells a wrong method (405) from an unknown path (404)', () => {
    const routes = new RouteTable(operationRoutes(operations));
    expect(routes.match('PATCH', '/api/v1/upload/x')).toEqual({ operation: undefined, pathKnown: true });
    expect(routes.match('GET', '/api/v1/nothing')).toEqual({ operation: undefined, pathKnown: false });
    expect(routes.match('GET', '/api/v1/upload/x/extra')).toEqual({
      operation: undefined,
      pathKnown: false,
    });
  });

  it('prefers the most literal template, and reaches no operation through a route that serves none', () => {
    const operation = (operationId: string, path: string) =>
      ({
        operationId,
        path,
        method: 'get',
        parameters: [],
        security: [],
        validationStyle: 'array',
      }) as DocumentOperation;
    const routes = new RouteTable([
      { template: '/a/{id}', method: 'GET', headers: ['X-One'], operation: operation('byId', '/a/{id}') },
      { template: '/a/latest', method: 'GET', headers: [], operation: operation('latest', '/a/latest') },
      { template: '/a/latest', method: 'DELETE', headers: [] },
      { template: '/docs/{asset}', method: 'GET', headers: [] },
    ]);
    expect(routes.match('GET', '/a/latest').operation?.operationId).toBe('latest');
    expect(routes.match('GET', '/a/7')).toEqual({
      operation: operation('byId', '/a/{id}'),
      params: { id: '7' },
    });
    expect(routes.match('GET', '/a/7/8')).toEqual({ operation: undefined, pathKnown: false });
    expect(routes.match('GET', '/docs/x.css')).toEqual({ operation: undefined, pathKnown: false });
    expect(routes.answers('/docs/x.css', 'GET')).toBe(true);
    expect(routes.answers('/a/latest', 'DELETE')).toBe(true);
    expect(routes.lookup('/a/latest')).toEqual({
      methods: ['GET', 'DELETE'],
      headers: ['Accept', 'X-Request-Id', 'X-One'],
    });
    expect(routes.lookup('/b')).toBeUndefined();
  });

  it('counts the slashes it buckets templates and paths by', () => {
    expect(slashCount('')).toBe(0);
    expect(slashCount('/')).toBe(1);
    expect(slashCount('/api/v1/models')).toBe(3);
    expect(slashCount('/api/v1/models/')).toBe(4);
    expect(slashCount('/api/v1/predict/{prediction_id}')).toBe(slashCount('/api/v1/predict/abc'));
    expect(slashCount('//a//')).toBe(4);
  });
});

describe('RequestValidator', () => {
  it('reports a bad path id, a bad query value and a bad body where openapi-backend would', async () => {
    const validator = new RequestValidator(operations);
    const badId = await validator.validate('getUpload', {
      path: { image_id: 'nope' },
      query: {},
      body: undefined,
      checkBody: false,
    });
    expect(badId.map((e) => [e.instancePath, e.keyword])).toEqual([['/path/image_id', 'format']]);
    const badQuery = await validator.validate('exportOverlayPng', {
      path: { segmentation_id: '3f1c2a6e-8b7d-4c55-9a0e-6d2b1f4e9a11' },
      query: { max_size: 'big' },
      body: undefined,
      checkBody: false,
    });
    expect(badQuery.map((e) => e.instancePath)).toEqual(['/query/max_size']);
    const badBody = await validator.validate('createPrediction', {
      path: {},
      query: {},
      body: { image_id: 'x' },
      checkBody: true,
    });
    expect(badBody.map((e) => [e.instancePath, e.keyword])).toEqual(
      expect.arrayContaining([
        ['/requestBody/image_id', 'format'],
        ['/requestBody', 'required'],
      ]),
    );
    const noBody = await validator.validate('createPrediction', {
      path: {},
      query: {},
      body: undefined,
      checkBody: true,
    });
    expect(noBody.map((e) => (e.params as { missingProperty?: string }).missingProperty)).toEqual([
      'requestBody',
    ]);
  });

  it('coerces query values for checking without changing what the handler receives', async () => {
    const validator = new RequestValidator(operations);
    const query = { max_size: '512', columns: ['area_px'] };
    const errors = await validator.validate('exportOverlayPng', {
      path: { segmentation_id: '3f1c2a6e-8b7d-4c55-9a0e-6d2b1f4e9a11' },
      query,
      body: undefined,
      checkBody: false,
    });
    expect(errors).toEqual([]);
    expect(query).toEqual({ max_size: '512', columns: ['area_px'] });
  });

  it('lets unknown query names through, and checks no body it is told not to (a streamed one)', async () => {
    const validator = new RequestValidator(operations);
    const withExtraQuery = await validator.validate('exportOverlayPng', {
      path: { segmentation_id: '3f1c2a6e-8b7d-4c55-9a0e-6d2b1f4e9a11' },
      query: { max_size: '512', utm_source: 'mail' },
      body: undefined,
      checkBody: false,
    });
    expect(withExtraQuery).toEqual([]);
    const streamed = await validator.validate('createPrediction', {
      path: {},
      query: {},
      body: undefined,
      checkBody: false,
    });
    expect(streamed).toEqual([]);
  });

  it("checks POST /upload's JSON mode, which the public document lists under x-also-accepts", async () => {
    const validator = new RequestValidator(operations);
    const check = (body: unknown) =>
      validator.validate('uploadImage', { path: {}, query: {}, body, checkBody: true });
    expect(await check({ name: 'a.tif', size: 10 })).toEqual([]);
    expect((await check({ name: '', size: 0 })).map((e) => e.instancePath)).toEqual(
      expect.arrayContaining(['/requestBody/name', '/requestBody/size']),
    );
  });

  it('routes and checks the control document too (mock-control.yaml)', async () => {
    const routes = new RouteTable(operationRoutes(operations));
    expect(routes.match('POST', '/__mock/reset').operation?.operationId).toBe('mockReset');
    expect(routes.match('POST', '/api/v1/api-keys').operation?.operationId).toBe('createApiKey');
    const validator = new RequestValidator(operations);
    const bad = await validator.validate('mockSetPlan', {
      path: { organization_id: 'nope' },
      query: {},
      body: undefined,
      checkBody: false,
    });
    expect(bad.map((e) => e.instancePath)).toEqual(['/path/organization_id']);
  });
});
