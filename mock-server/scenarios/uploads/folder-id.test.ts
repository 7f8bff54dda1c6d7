/**
 * The mock has no folders (they are made in the dashboard, never through this API): an image
 * record created into any folder is a 404 that keeps nothing, resumable or not, and `folder_id`
 * null or omitted creates the record as usual.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME_ORG, apiClient } from '../../../test-support/api-client.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import type { RunningMock } from '../../server.js';

let mock: RunningMock;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  mock = await startInstantMock();
  api = apiClient(mock.url);
});
afterAll(() => mock?.close());

describe('POST /api/v1/image with folder_id', () => {
  it.each([false, true])(
    'a folder id is 404 Folder not found and keeps nothing (resumable: %s)',
    async (resumable) => {
      const before = await mock.services.state.images.countOf(ACME_ORG);
      const answer = await api.call('POST', '/api/v1/image', {
        name: 'in-a-folder.tif',
        size: 1000,
        folder_id: randomUUID(),
        resumable,
      });
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ detail: 'Folder not found' });
      expect(await mock.services.state.images.countOf(ACME_ORG)).toBe(before);
    },
  );

  it('folder_id null creates the record outside any folder', async () => {
    const answer = await api.call('POST', '/api/v1/image', {
      name: 'loose.tif',
      size: 1000,
      folder_id: null,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ folder_id: null, upload_status: 'uploading' });
  });
});
