/**
 * Opens of a share's page sent while the share is revoked: each open either came before the revoke
 * (200, and its view is in the count the revoke answers) or after it (404, no view). A page that
 * found the share live, then counted its view after the revoke had answered, is neither: it opens
 * a link the revoke already turned off, and the count grows on a revoked share.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type LinkShare } from '../../../test-support/api-client.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import type { RunningMock } from '../../server.js';

let mock: RunningMock;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  mock = await startInstantMock();
  api = apiClient(mock.url);
});
afterAll(() => mock?.close());

describe('opens of a page while its share is revoked', () => {
  it('each come before the revoke (counted in its answer) or after it (404)', async () => {
    const segmentation = await api.completedSegmentation();
    for (let round = 0; round < 5; round++) {
      const share: LinkShare = await api.createShare(segmentation.segmentationId);
      const opens = Array.from({ length: 20 }, () => fetch(share.url).then((page) => page.status));
      const revoked = api.call('DELETE', `/api/v1/shares/${share.id}`);
      const statuses = await Promise.all(opens);
      const { body } = await revoked;
      const opened = statuses.filter((status) => status === 200).length;
      expect(body.view_count).toBe(opened);
      expect((await api.getShare(share.id)).view_count).toBe(opened);
    }
  });
});
