/**
 * Ids are UUIDs, and a UUID written in upper case (or as `urn:uuid:...`) is the same id: it finds
 * the same record everywhere, and every answer carries the canonical lower-case form.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME_KEY, BETA_KEY, apiClient, type CompletedSegmentation } from '../../test-support/api-client.js';
import { startInstantMock } from '../../test-support/instant-mock.js';
import type { RunningMock } from '../server.js';
import { canonicalUuid } from './canonical-ids.js';

let mock: RunningMock;
let api: ReturnType<typeof apiClient>;
let done: CompletedSegmentation;
beforeAll(async () => {
  mock = await startInstantMock();
  api = apiClient(mock.url);
  done = await api.completedSegmentation();
});
afterAll(() => mock.close());

const upper = (id: string) => id.toUpperCase();

describe('ids written in upper case', () => {
  it('find the image, through both of its reads, with the id answered in lower case', async () => {
    for (const path of ['/api/v1/image/', '/api/v1/upload/']) {
      const got = await api.call('GET', path + upper(done.imageId));
      expect(got.status).toBe(200);
      expect(got.body.id).toBe(done.imageId);
    }
  });

  it('find the prediction, and a body id in upper case starts one on the same image', async () => {
    const polled = await api.call('GET', `/api/v1/predict/${upper(done.predictionId)}`);
    expect(polled.status).toBe(200);
    expect(polled.body.prediction_id).toBe(done.predictionId);
    const ack = await api.call('POST', '/api/v1/predict', {
      image_id: upper(done.imageId),
      model_id: upper(done.modelId),
    });
    expect(ack.status).toBe(200);
    const second = await api.pollPrediction(ack.body.prediction_id);
    expect(second.image_id).toBe(done.imageId);
    expect(second.model_id).toBe(done.modelId);
  });

  it('export the segmentation and share it once: the same share whatever the case', async () => {
    const csv = await fetch(`${mock.url}/api/v1/export/${upper(done.segmentationId)}/measurements.csv`, {
      headers: { authorization: `Bearer ${ACME_KEY}` },
    });
    expect(csv.status).toBe(200);
    expect(await csv.text()).toContain(done.segmentationId);
    const first = await api.call('POST', '/api/v1/shares', { segmentation_id: done.segmentationId });
    const again = await api.call('POST', '/api/v1/shares', { segmentation_id: upper(done.segmentationId) });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.segmentation_id).toBe(done.segmentationId);
    const read = await api.call('GET', `/api/v1/shares/${upper(first.body.id)}`);
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(first.body.id);
  });

  it('in the urn:uuid: form the document accepts, find the same image', async () => {
    const got = await api.call('GET', `/api/v1/image/urn:uuid:${upper(done.imageId)}`);
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(done.imageId);
  });

  it('another organization still gets 404, whatever the case', async () => {
    const got = await api.call('GET', `/api/v1/image/${upper(done.imageId)}`, undefined, BETA_KEY);
    expect(got.status).toBe(404);
  });
});

describe('canonicalUuid', () => {
  it('lower-cases a UUID and drops its urn prefix, and leaves anything else alone', () => {
    const id = '3f1c2a6e-8b7d-4c55-9a0e-6d2b1f4e9a11';
    expect(canonicalUuid(id.toUpperCase())).toBe(id);
    expect(canonicalUuid(`URN:UUID:${id}`)).toBe(id);
    expect(canonicalUuid('Plate-1.TIF')).toBe('Plate-1.TIF');
  });
});
