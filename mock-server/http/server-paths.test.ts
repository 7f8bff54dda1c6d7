import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstantMock } from '../../test-support/instant-mock.js';
import type { RunningMock } from '../server.js';
import { ACME_KEY, ACME_ORG, apiClient } from '../../test-support/api-client.js';
import { addServerRoot, detailWithoutServerPaths, withoutServerPaths } from './server-paths.js';

describe('withoutServerPaths', () => {
  it('replaces paths under server folders, and leaves API paths and other text alone', () => {
    const file = path.join(os.tmpdir(), 'cellseg-mock-Ab12', 'derived', 'x.preview.png');
    expect(withoutServerPaths(`ENOENT: no such file or directory, open '${file}'`)).toBe(
      "ENOENT: no such file or directory, open '<server path>'",
    );
    expect(withoutServerPaths(`at file://${process.cwd()}/mock-server/x.ts:1:2`)).toBe('at <server path>');
    const api = 'poll GET /api/v1/upload/3f1c2a6e-8b7d-4c55-9a0e-6d2b1f4e9a11 until it is ready';
    expect(withoutServerPaths(api)).toBe(api);
  });

  it('covers a data folder registered at start, and every string of a 422 item list', () => {
    addServerRoot('/srv/cellseg-data');
    expect(
      detailWithoutServerPaths([
        { loc: ['body'], msg: 'bad /srv/cellseg-data/objects/1', ctx: { error: '/srv/cellseg-data' } },
      ]),
    ).toEqual([{ loc: ['body'], msg: 'bad <server path>', ctx: { error: '<server path>' } }]);
  });
});

describe('error texts a client reads', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startInstantMock();
  });
  afterAll(() => mock.close());

  it("a failed prediction's error names no server file", async () => {
    const api = apiClient(mock.url);
    const leaked = `Segmentation failed: ENOENT: no such file or directory, open '${path.join(mock.config.dataDir, 'derived', 'gone.png')}'`;
    const forced = await api.call(
      'POST',
      '/__mock/predictions/outcomes',
      { organization_id: ACME_ORG, status: 'FAILED', error: leaked },
      null,
    );
    expect(forced.status).toBe(200);
    const image = await api.uploadTiff();
    const models = (await api.call('GET', '/api/v1/models')).body as Array<{ id: string }>;
    const ack = await api.call('POST', '/api/v1/predict', { image_id: image, model_id: models[0].id });
    const done = await api.pollPrediction(ack.body.prediction_id, { key: ACME_KEY });
    expect(done.status).toBe('FAILED');
    expect(done.error).toBe("Segmentation failed: ENOENT: no such file or directory, open '<server path>'");
  });
});
