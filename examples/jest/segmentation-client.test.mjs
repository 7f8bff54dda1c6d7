/* global fetch, FormData, Blob */
// The mock inside jest with one import. The package is an ES module, so jest runs with Node's
// --experimental-vm-modules (see package.json), as jest's documentation asks for ES modules.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { startMock } from 'cellseg-mock';

let mock;

beforeAll(async () => {
  mock = await startMock({ predictionStartDelayMs: 0, predictionRunDelayMs: 0 });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const listModels = () =>
  fetch(`${mock.apiUrl}/models`, { headers: { authorization: `Bearer ${mock.apiKey}` } });

describe('a client of the segmentation service', () => {
  test('lists the models the organization may use', async () => {
    const response = await listModels();
    expect(response.status).toBe(200);
    const names = (await response.json()).map((m) => m.name);
    expect(names).toContain(mock.models.find((m) => m.scope === 'base').name);
  });

  test('is refused once its plan allows no image', async () => {
    const org = mock.organizations[0];
    await mock.setPlanCaps(org.id, { storage_cap_images: 0, monthly_analysis_cap: 0 });
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(8)], { type: 'image/tiff' }), 'tiny.tif');
    const response = await fetch(`${mock.apiUrl}/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${mock.apiKey}` },
      body: form,
    });
    expect(response.status).toBe(402);
  });
});
