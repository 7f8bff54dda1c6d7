// The mock inside vitest with one import: a free port and a data folder of its own per file, so
// test files running in parallel never see each other's images or faults.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMock, type RunningMockInstance } from 'cellseg-mock';

let mock: RunningMockInstance;

beforeAll(async () => {
  mock = await startMock({ predictionStartDelayMs: 0, predictionRunDelayMs: 0 });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const listModels = () =>
  fetch(`${mock.apiUrl}/models`, { headers: { authorization: `Bearer ${mock.apiKey}` } });

describe('a client of the segmentation service', () => {
  it('lists the models the organization may use', async () => {
    const response = await listModels();
    expect(response.status).toBe(200);
    const names = ((await response.json()) as Array<{ name: string }>).map((m) => m.name);
    expect(names).toContain(mock.models.find((m) => m.scope === 'base')!.name);
  });

  it('sees a 503 the mock was told to answer once, then the real answer', async () => {
    await mock.setFault({ operation_id: 'listModels', status: 503, times: 1 });
    expect((await listModels()).status).toBe(503);
    expect((await listModels()).status).toBe(200);
  });
});
