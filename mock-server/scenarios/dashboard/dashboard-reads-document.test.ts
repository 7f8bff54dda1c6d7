/**
 * The dashboard's three reads (every organization's images with predictions and shares, an image's
 * thumbnail, an organization's models) are operations of the control document: what the routes
 * really answer is validated against it, for each status they give.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenApiContract } from '../../../contract-tests/harness/openapi-contract.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { ACME_KEY, ACME_ORG, apiClient } from '../../../test-support/api-client.js';
import type { RunningMock } from '../../server.js';

const ADMIN = 'additions-test-admin-token';

describe("the dashboard's reads, as the control document describes them", () => {
  let mock: RunningMock;
  let contract: OpenApiContract;

  beforeAll(async () => {
    contract = new OpenApiContract(); // both documents: the reads live in mock-control.yaml
    mock = await startInstantMock({ adminToken: ADMIN });
  });
  afterAll(async () => {
    await mock?.close();
  });

  async function expectConforms(
    operationId: string,
    route: string,
    status: number,
    key: string | null = ADMIN,
  ) {
    const response = await fetch(mock.url + route, {
      headers: key ? { authorization: `Bearer ${key}` } : {},
    });
    const type = response.headers.get('content-type');
    const body = type?.includes('json') ? await response.json() : await response.arrayBuffer();
    expect(response.status, `${operationId} ${route}`).toBe(status);
    expect(contract.validateResponse(operationId, response.status, type, body)).toEqual([]);
    return body;
  }

  it('describe every answer of the three reads', async () => {
    for (const op of ['mockListImages', 'mockImageThumbnail', 'mockListModels'])
      expect(contract.operation(op).tags).toEqual(['mock-control']);

    const api = apiClient(mock.url);
    const segmentation = await api.completedSegmentation();
    await api.createShare(segmentation.segmentationId);
    const images = (await expectConforms('mockListImages', '/__mock/images', 200)) as {
      predictions: { shares: unknown[] }[];
    }[];
    expect(images[0].predictions[0].shares).toHaveLength(1);
    await expectConforms('mockListImages', `/__mock/images?organization_id=${ACME_ORG}&limit=5`, 200);
    await expectConforms('mockListImages', '/__mock/images', 401, null);
    await expectConforms('mockListImages', '/__mock/images', 401, 'not-the-admin-token');
    await expectConforms('mockListImages', '/__mock/images', 403, ACME_KEY);
    await expectConforms('mockListImages', `/__mock/images?organization_id=${randomUUID()}`, 404);
    await expectConforms('mockListImages', '/__mock/images?limit=1001', 422);

    await expectConforms('mockImageThumbnail', `/__mock/images/${segmentation.imageId}/thumbnail.png`, 200);
    await expectConforms('mockImageThumbnail', `/__mock/images/${randomUUID()}/thumbnail.png`, 404);
    await expectConforms(
      'mockImageThumbnail',
      `/__mock/images/${segmentation.imageId}/thumbnail.png`,
      401,
      null,
    );

    await expectConforms('mockListModels', `/__mock/organizations/${ACME_ORG}/models`, 200);
    await expectConforms('mockListModels', `/__mock/organizations/${randomUUID()}/models`, 404);
    await expectConforms('mockListModels', `/__mock/organizations/${ACME_ORG}/models`, 401, null);
  });
});
