/**
 * The sandbox's abuse limits over HTTP (domain/abuse-limits.ts, docs/limits.md): each answers as
 * the document says (429 with Retry-After, or 402 for stored bytes), refuses only the organization
 * at its limit, and lets it go on once it is back under. Every default is off: the other tests of
 * the project run without them.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ACME_KEY,
  BETA_KEY,
  apiClient,
  seededModelId,
  type ReadAnswer,
} from '../../../test-support/api-client.js';
import { responseViolations } from '../../../test-support/document-responses.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { eventually } from '../../../test-support/launched-mock.js';
import { loadConfig } from '../../config.js';
import type { RunningMock } from '../../server.js';

const acmeOf = (mock: RunningMock) => apiClient(mock.url, ACME_KEY);
const betaOf = (mock: RunningMock) => apiClient(mock.url, BETA_KEY);

function expectDocumented(operationId: string, answer: ReadAnswer): void {
  expect(
    responseViolations(operationId, answer.status, answer.headers.get('content-type'), answer.text),
  ).toEqual([]);
}

describe('abuse limits are off unless configured', () => {
  it('defaults every limit to 0 (none), so a laptop behaves as before', () => {
    const config = loadConfig([], {});
    expect(config.rateLimitPerSecond).toBe(0);
    expect(config.rateLimitInstances).toBe(1);
    expect(config.maxStoredBytesPerOrganization).toBe(0);
    expect(config.maxOpenUploadsPerOrganization).toBe(0);
    expect(config.maxConcurrentPredictionsPerOrganization).toBe(0);
  });

  it('reads each from its flag and its environment variable', () => {
    const config = loadConfig(['--rate-limit-per-second', '7', '--max-open-uploads-per-org', '3'], {
      MAX_STORED_BYTES_PER_ORG: '1000',
      MAX_CONCURRENT_PREDICTIONS_PER_ORG: '2',
      RATE_LIMIT_INSTANCES: '3',
    });
    expect(config).toMatchObject({
      rateLimitPerSecond: 7,
      rateLimitInstances: 3,
      maxOpenUploadsPerOrganization: 3,
      maxStoredBytesPerOrganization: 1000,
      maxConcurrentPredictionsPerOrganization: 2,
    });
  });
});

describe('requests per API key per second', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startInstantMock({ rateLimitPerSecond: 5 });
  });
  afterAll(() => mock.close());

  it('answers 429 with Retry-After past the limit, to that key only', async () => {
    const burst = await Promise.all(
      Array.from({ length: 30 }, () => acmeOf(mock).call('GET', '/api/v1/models')),
    );
    const refused = burst.filter((a) => a.status === 429);
    // However the burst falls across windows, at most a few windows' worth pass.
    expect(refused.length).toBeGreaterThan(0);
    expect(burst.every((a) => a.status === 200 || a.status === 429)).toBe(true);
    for (const answer of refused) {
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(answer.body.detail).toMatch(/5 requests per second per API key/);
      expectDocumented('listModels', answer);
    }
    // Another organization's key, under its own limit, is served at once.
    const beta = await Promise.all([1, 2, 3].map(() => betaOf(mock).call('GET', '/api/v1/models')));
    expect(beta.map((a) => a.status)).toEqual([200, 200, 200]);
  });

  it('serves the key again in a later window', async () => {
    await Promise.all(Array.from({ length: 20 }, () => acmeOf(mock).call('GET', '/api/v1/models')));
    expect(
      await eventually(async () => (await acmeOf(mock).call('GET', '/api/v1/models')).status === 200, 10_000),
    ).toBe(true);
  });

  it("counts an organization's test helpers too, and never the operator's routes", async () => {
    const helpers = await Promise.all(
      Array.from({ length: 20 }, () => acmeOf(mock).call('GET', '/__mock/org/clock')),
    );
    const refused = helpers.find((a) => a.status === 429);
    expect(refused).toBeDefined();
    expectDocumented('mockOrgGetClock', refused!);
    const operator = await Promise.all(
      Array.from({ length: 20 }, () => acmeOf(mock).call('GET', '/__mock/clock', undefined, null)),
    );
    expect(operator.every((a) => a.status === 200)).toBe(true);
  });
});

describe('per organization: stored bytes, open uploads, predictions in flight', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startInstantMock({
      maxStoredBytesPerOrganization: 200_000,
      maxOpenUploadsPerOrganization: 2,
      maxConcurrentPredictionsPerOrganization: 1,
    });
  });
  afterAll(() => mock.close());
  beforeEach(async () => {
    expect((await acmeOf(mock).call('POST', '/__mock/reset', {}, null)).status).toBe(200);
  });

  const openUpload = (mockKey: 'acme' | 'beta', size: number) =>
    (mockKey === 'acme' ? acmeOf(mock) : betaOf(mock)).call('POST', '/api/v1/upload', {
      name: 'big.tif',
      size,
    });

  it('refuses a third open resumable upload with 429 and Retry-After, until one is aborted', async () => {
    const first = await openUpload('acme', 1000);
    expect(first.status).toBe(200);
    expect((await openUpload('acme', 1000)).status).toBe(200);
    const third = await openUpload('acme', 1000);
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('5');
    expect(third.body.detail).toMatch(/2 resumable uploads open at once/);
    expectDocumented('uploadImage', third);
    const viaRecord = await acmeOf(mock).call('POST', '/api/v1/image', {
      name: 'x.tif',
      size: 1000,
      image_type: 'TIFF',
      resumable: true,
    });
    expect(viaRecord.status).toBe(429);
    expectDocumented('createImage', viaRecord);
    expect((await openUpload('beta', 1000)).status).toBe(200);
    const aborted = await acmeOf(mock).call('POST', `/api/v1/upload/${first.body.image.id}/abort`);
    expect(aborted.status).toBe(200);
    expect((await openUpload('acme', 1000)).status).toBe(200);
  });

  it('refuses an image past the stored bytes with 402, a single-request upload after it arrived', async () => {
    const big = await openUpload('acme', 150_000);
    expect(big.status).toBe(200);
    const over = await openUpload('acme', 60_000);
    expect(over.status).toBe(402);
    expect(over.body.detail).toMatch(/at most 200000 bytes of images per organization/);
    expectDocumented('uploadImage', over);
    // The small TIFF (about 65 KB) fits only once the declared 150 KB are deleted.
    await expect(acmeOf(mock).uploadTiff()).rejects.toThrow(/402/);
    expect((await acmeOf(mock).call('DELETE', `/api/v1/upload/${big.body.image.id}`)).status).toBe(200);
    expect(await acmeOf(mock).uploadTiff()).toMatch(/-/);
    expect((await openUpload('beta', 150_000)).status).toBe(200);
  });

  it('refuses a second prediction in flight with 429 and Retry-After, and counts no analysis for it', async () => {
    const acme = acmeOf(mock);
    const held = await acme.call('PUT', '/__mock/org/predictions/progress', { complete_after_polls: 1 });
    expect(held.status).toBe(200);
    const [one, two] = [await acme.uploadTiff(), await acme.uploadTiff()];
    const first = await acme.predict(one);
    const refused = await acme.call('POST', '/api/v1/predict', {
      image_id: two,
      model_id: seededModelId('nuclei-fluorescence'),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body.detail).toMatch(/at most 1 predictions per organization at once/);
    expectDocumented('createPrediction', refused);
    const usage = (await acme.call('GET', '/__mock/organizations', undefined, null)).body[0].usage;
    expect(usage.analyses_this_month).toBe(1);
    // Another organization predicts meanwhile; the held one, once read, frees the slot.
    const beta = betaOf(mock);
    expect((await beta.predict(await beta.uploadTiff())).prediction_id).toBeTruthy();
    expect(
      await eventually(() => mock.services.predictions.isHeldForPolls(first.prediction_id), 60_000),
    ).toBe(true);
    expect((await acme.pollPrediction(first.prediction_id)).status).toBe('COMPLETED');
    expect((await acme.predict(two)).prediction_id).toBeTruthy();
  });
});
