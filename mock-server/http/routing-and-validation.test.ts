import { beforeAll, describe, expect, it } from 'vitest';
import type { DocumentOperation } from './document-operation.js';
import { documentOperations } from './document-operations.js';
import { OperationMatcher } from './operation-matcher.js';
import { RequestValidator } from './request-validator.js';

let operations: DocumentOperation[];
beforeAll(async () => {
  operations = documentOperations();
});

describe('OperationMatcher', () => {
  it('routes by method and path, decoding path parameters', () => {
    const matcher = new OperationMatcher(operations);
    const found = matcher.match('GET', '/api/v1/upload/abc%20def');
    expect(found.operation?.operationId).toBe('getUpload');
    expect('params' in found && found.params).toEqual({ image_id: 'abc def' });
    expect(matcher.match('POST', '/api/v1/upload/x/complete').operation?.operationId).toBe('completeUpload');
    expect(matcher.match('GET', '/api/v1/image').operation).toBeUndefined();
  });

  it('tells a wrong method (405) from an unknown path (404)', () => {
    const matcher = new OperationMatcher(operations);
    expect(matcher.match('PATCH', '/api/v1/upload/x')).toEqual({ operation: undefined, pathKnown: true });
    expect(matcher.match('GET', '/api/v1/nothing')).toEqual({ operation: undefined, pathKnown: false });
    expect(matcher.match('GET', '/api/v1/upload/x/extra')).toEqual({
      operation: undefined,
      pathKnown: false,
    });
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
    const matcher = new OperationMatcher(operations);
    expect(matcher.match('POST', '/__mock/reset').operation?.operationId).toBe('mockReset');
    expect(matcher.match('POST', '/api/v1/api-keys').operation?.operationId).toBe('createApiKey');
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
