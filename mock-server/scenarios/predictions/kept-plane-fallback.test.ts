/**
 * A kept plane file (derived/<id>/plane.bin) cut short or overwritten must not fail the image's
 * predictions: through the real decoder children, whose errors come back by name only, the
 * prediction falls back to the stored TIFF as it does for an image with no plane.
 */
import { truncateSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type CompletedSegmentation } from '../../../test-support/api-client.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import type { RunningMock } from '../../server.js';
import { dataLayout } from '../../stores/data-layout.js';

let mock: RunningMock;
let api: ReturnType<typeof apiClient>;
let first: CompletedSegmentation;
const planeOf = (imageId: string) => dataLayout(mock.services.config.dataDir).derivedFilesOf(imageId).plane;

beforeAll(async () => {
  mock = await startInstantMock();
  api = apiClient(mock.url);
  first = await api.completedSegmentation();
});
afterAll(() => mock?.close());

describe('a corrupt kept plane', () => {
  it('overwritten with other bytes: the prediction completes from the TIFF, same cells', async () => {
    writeFileSync(planeOf(first.imageId), 'not a plane at all');
    const again = await api.completedSegmentation(undefined, first.imageId);
    expect(again.cellCount).toBe(first.cellCount);
  });

  it('cut short after its header: the prediction completes from the TIFF, same cells', async () => {
    const image = await api.completedSegmentation();
    truncateSync(planeOf(image.imageId), 100);
    const again = await api.completedSegmentation(undefined, image.imageId);
    expect(again.cellCount).toBe(image.cellCount);
  });
});
