import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMock } from '../../mock-server/server.js';
import { startInstantMock } from '../instant-mock.js';
import { REPO_ROOT } from '../launched-mock.js';
import { operationsOf } from './document-operations.js';
import { walkDocument, type WalkReport } from './walk.js';

/**
 * What a stateful tool reaches given only the public document (as the mock serves it), an API key
 * and the seeded sample: every link, from the uploads to the share's revocation, and never a 5xx.
 */
const seed = JSON.parse(readFileSync(path.join(REPO_ROOT, 'fixtures', 'seed.json'), 'utf8')) as {
  organizations: Array<{ api_keys: string[] }>;
};

/** Every string and number the seed holds: the only values that exist before any request. */
function seededValues(value: unknown, out = new Set<string>()): Set<string> {
  if (typeof value === 'string' || typeof value === 'number') out.add(String(value));
  else if (Array.isArray(value)) for (const item of value) seededValues(item, out);
  else if (value && typeof value === 'object')
    for (const item of Object.values(value)) seededValues(item, out);
  return out;
}

/** The values a link carries as they are, not read from the exchange by a runtime expression. */
function constantsOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string' && !value.startsWith('$')) out.push(value);
  else if (typeof value === 'number' || typeof value === 'boolean') out.push(String(value));
  else if (Array.isArray(value)) for (const item of value) constantsOf(item, out);
  else if (value && typeof value === 'object')
    for (const item of Object.values(value)) constantsOf(item, out);
  return out;
}

let document: Record<string, unknown>;

let mock: RunningMock;
let report: WalkReport;

beforeAll(async () => {
  mock = await startInstantMock();
  document = (await (await fetch(`${mock.url}/openapi.json`)).json()) as Record<string, unknown>;
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
    expect(Object.keys(report.links).length).toBeGreaterThanOrEqual(16);
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

  it('starts from every operation without a path parameter, creating an image record too', () => {
    expect(report.unfilled).toEqual({});
    const roots = report.exchanges.filter((exchange) => exchange.via === undefined);
    expect(roots.filter((e) => e.operation === 'createImage').map((e) => e.status)).toEqual([200]);
    expect(roots.filter((e) => e.operation === 'uploadImage').map((e) => e.status)).toEqual([200]);
  });

  it('follows no link to a 404: every value a link carries exists', () => {
    expect(report.exchanges.filter((exchange) => exchange.via && exchange.status === 404)).toEqual([]);
  });

  it('carries in its links no value that exists in no seed', () => {
    const seeded = seededValues(seed);
    const unseeded: string[] = [];
    for (const operation of operationsOf(document).values())
      for (const [status, links] of Object.entries(operation.links))
        for (const [name, link] of Object.entries(links))
          for (const value of constantsOf([link.parameters, link.requestBody]))
            if (!seeded.has(value)) unseeded.push(`${operation.id} ${status} ${name}: ${value}`);
    expect(unseeded).toEqual([]);
  });

  it('never gets a 5xx', () => {
    expect(report.exchanges.filter((exchange) => exchange.status >= 500)).toEqual([]);
  });
});
