import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import type { RunningMock } from '../../server.js';

let mock: RunningMock;
beforeAll(async () => {
  mock = await startInstantMock({ predictionStartDelayMs: 7, predictionRunDelayMs: 11 });
});
afterAll(() => mock.close());

const post = (path: string, body: unknown) => send('POST', path, body);
const put = (path: string, body: unknown) => send('PUT', path, body);

async function send(method: string, path: string, body: unknown) {
  const response = await fetch(mock.url + path, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('a full reset', () => {
  it('restores the configured default prediction progress settings', async () => {
    const changed = await put('/__mock/predictions/progress', {
      start_delay_ms: 5000,
      run_delay_ms: 6000,
      complete_after_polls: 3,
    });
    expect(changed.body).toMatchObject({ start_delay_ms: 5000, run_delay_ms: 6000, complete_after_polls: 3 });
    expect((await post('/__mock/reset', {})).status).toBe(200);
    const now = await put('/__mock/predictions/progress', {});
    expect(now.body).toEqual({ organization_id: null, start_delay_ms: 7, run_delay_ms: 11 });
  });

  it('puts the clock back to real time: the emptied state holds no offset, and the clock reads it again', async () => {
    expect((await post('/__mock/clock', { advance_ms: 86_400_000 })).status).toBe(200);
    expect((await post('/__mock/reset', {})).status).toBe(200);
    expect(mock.services.clock.offsetMs()).toBe(0);
    expect(await mock.services.state.clockOffsets.get('')).toBeUndefined();
  });
});
