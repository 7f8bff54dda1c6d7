import fc from 'fast-check';
import { ACME_KEY, apiClient, seed } from './api-client.js';
import type { RunningMock } from '../mock-server/server.js';
import { startInstantMock } from './instant-mock.js';
import { curlOf, requestArbitrary, sendAndJudge, type FuzzContext } from './openapi-fuzz.js';

// Long against an answer (milliseconds), short against "never".
const ANSWER_TIMEOUT_MS = 30_000;

/**
 * A fresh mock with one of everything the document's paths name (a ready image with a completed
 * segmentation, an image mid-upload, a share, organizations, models), found through HTTP.
 */
export async function startFuzzTarget(): Promise<{ mock: RunningMock; context: FuzzContext }> {
  const mock = await startInstantMock();
  const api = apiClient(mock.url);
  const done = await api.completedSegmentation();
  const share = await api.createShare(done.segmentationId);
  const opened = await api.call('POST', '/api/v1/upload', { name: 'open.tif', size: 1000 });
  const organizations = (await api.call('GET', '/__mock/organizations', undefined, null)).body as Array<{
    id: string;
  }>;
  const models = (await api.call('GET', '/api/v1/models')).body as Array<{ id: string }>;
  const context: FuzzContext = {
    // The seed's keys: listings never show keys.
    apiKeys: [ACME_KEY, ...seed.organizations.flatMap((o) => o.api_keys)],
    knownIds: {
      image_id: [done.imageId, opened.body.image.id],
      segmentation_id: [done.segmentationId],
      prediction_id: [done.predictionId],
      share_id: [share.id],
      share_token: [new URL(share.url).pathname.split('/').pop()!],
      organization_id: organizations.map((o) => o.id),
      model_id: models.map((m) => m.id),
    },
  };
  return { mock, context };
}

/**
 * The property: whatever the request, the mock answers, never with a 5xx, and the answer is one
 * the document allows. Faults a request injected through the control plane are cleared after it,
 * so the next request meets the mock itself.
 */
export async function fuzzMock(
  target: { mock: RunningMock; context: FuzzContext },
  options: { seed: number; numRuns: number },
): Promise<void> {
  const { mock, context } = target;
  await fc.assert(
    fc.asyncProperty(requestArbitrary(context), async (request) => {
      const outcome = await sendAndJudge(mock.url, request, ANSWER_TIMEOUT_MS);
      await mock.services.state.faults.clear();
      if (outcome.problems.length)
        throw new Error(`${outcome.problems.join('\n')}\nreplay: ${curlOf(mock.url, request)}`);
    }),
    { seed: options.seed, numRuns: options.numRuns, endOnFailure: true },
  );
}
