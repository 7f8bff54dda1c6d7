import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMock } from '../../mock-server/server.js';
import { startInstantMock } from '../instant-mock.js';
import { REPO_ROOT } from '../launched-mock.js';
import { walkDocument, type WalkReport } from './walk.js';

/**
 * What a stateful tool reaches given only the public document (as the mock serves it), an API key
 * and the seeded sample: every link, from the uploads to the share's revocation, and never a 5xx.
 */
const seed = JSON.parse(readFileSync(path.join(REPO_ROOT, 'fixtures', 'seed.json'), 'utf8')) as {
  organizations: Array<{ api_keys: string[] }>;
};

let mock: RunningMock;
let report: WalkReport;

beforeAll(async () => {
  mock = await startInstantMock();
  const document = (await (await fetch(`${mock.url}/openapi.json`)).json()) as Record<string, unknown>;
  report = await walkDocument({
    document,
    baseUrl: (document.servers as Array<{ url: string }>)[0].url,
    headers: { authorization: `Bearer ${seed.organizations[0].api_keys[0]}` },
    sample: {
      bytes: readFileSync(path.join(REPO_ROOT, 'fixtures', 'samples', 'cells.tif')),
      fileName: 'cells.tif',
      contentType: 'image/tiff',
    },
  });
});
afterAll(() => mock?.close());

describe('a walk of the public document by its links alone', () => {
  it('follows every link at least once', () => {
    expect(Object.keys(report.links).length).toBeGreaterThanOrEqual(17);
    expect(Object.entries(report.links).filter(([, followed]) => followed === 0)).toEqual([]);
  });

  it('reaches the end of the flow with the answers a partner would see', () => {
    const statuses = (operation: string) =>
      report.exchanges.filter((exchange) => exchange.operation === operation).map((e) => e.status);
    expect(statuses('uploadImage')).toContain(200);
    expect(statuses('getPrediction')).toContain(200);
    for (const operation of [
      'exportOverlayPng',
      'exportMeasurementsCsv',
      'exportRoisGeojson',
      'exportRoisZip',
      'createShare',
      'getShare',
      'revokeShare',
    ])
      expect(statuses(operation), operation).toContain(200);
  });

  it('never gets a 5xx', () => {
    expect(report.exchanges.filter((exchange) => exchange.status >= 500)).toEqual([]);
  });
});
