import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi, type TestContext } from 'vitest';
import { ApiClient, newCheckRecord, type CheckRecord } from './api-client.js';
import { runCheck, type CheckMeta } from './check.js';
import { sharedContract } from './openapi-contract.js';
import type { Target } from './target.js';
import type { Finding } from '../model/exchange.js';
import type { Oracle } from '../model/oracle.js';

/**
 * What is filed under one clause (a header the document declares as its own choice, an oracle
 * finding of the document's rule) fails only a check that names that clause: a check that
 * downloads an export by the way is not failed by its weak ETag or its file name.
 */
let server: http.Server;
let baseUrl: string;
const SEGMENTATION = 'cdef0123-3333-4333-8333-33333333cccc';

beforeAll(async () => {
  // an export behind a gzip proxy: its ETag weakened
  server = http.createServer((_req, res) => {
    res.writeHead(304, { etag: 'W/"v1"' });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const NAME_FINDING: Finding = {
  sentence: 'the document names the file',
  subject: 'exportRoisGeojson: Content-Disposition filename',
  predicted: '"a_rois.geojson"',
  received: '"b_rois.geojson"',
  clause: 'EXP-08',
};

/** A client of a check naming `clauses`, whose oracle answers every exchange with NAME_FINDING. */
function client(clauses: string[]): { api: ApiClient; record: CheckRecord } {
  const target: Target = {
    baseUrl,
    directBaseUrl: baseUrl,
    profile: 'staging',
    keys: { main: 'sk_test_clause_filed' },
    capabilities: new Set(),
    pollTimeoutMs: 1000,
    pollIntervalMs: 10,
    paceMs: 0,
    requestTimeoutMs: 2000,
    maxBodyBytes: 100_000,
    runId: 'clause-filed',
    namePrefix: 'contract-clause-filed',
    viaPrism: false,
  };
  const oracle = {
    knowBase: () => {},
    knowKeys: () => {},
    sending: () => () => {},
    observe: () => [NAME_FINDING],
  };
  const record = { ...newCheckRecord(), oracle: oracle as unknown as Oracle, clauses };
  return { api: new ApiClient(sharedContract(), target, target.keys.main, record), record };
}

const exported = (api: ApiClient) =>
  api.call('exportRoisGeojson', { params: { segmentation_id: SEGMENTATION } });

describe('a violation or finding filed under one clause', () => {
  it("is filed for a check that names the clause: EXP-11's the weak ETag, EXP-08's the file name", async () => {
    const validators = client(['EXP-11']);
    expect((await exported(validators.api)).violations).toEqual([]);
    expect(validators.record.filed).toEqual([
      { clause: 'EXP-11', message: expect.stringMatching(/header ETag is "W\/\\"v1\\"".*\(EXP-11\)$/) },
    ]);
    expect(validators.record.violations).toEqual([]);
    const names = client(['EXP-01', 'EXP-08']);
    await exported(names.api);
    expect(names.record.filed).toEqual([
      { clause: 'EXP-08', message: expect.stringMatching(/^oracle: .*Content-Disposition filename/) },
    ]);
  });

  it('is not reported by a check that does not name it', async () => {
    const other = client(['EXP-01']);
    await exported(other.api);
    expect(other.record.filed).toEqual([]);
    expect(other.record.violations).toEqual([]);
  });

  it("fails that clause alone: the check's other clauses pass what it judged", async () => {
    const reports = mkdtempSync(path.join(os.tmpdir(), 'clause-filed-'));
    vi.stubEnv('CONTRACT_BASE_URL', baseUrl);
    vi.stubEnv('CONTRACT_API_KEY', 'sk_test_main');
    vi.stubEnv('CONTRACT_PROFILE', 'mock');
    vi.stubEnv('CONTRACT_REPORT_DIR', reports);
    const run = async (clauses: string[]) => {
      const testContext = { task: { meta: {} }, skip: () => {} } as unknown as TestContext;
      const check = runCheck('filed', { clauses }, (ctx) => exported(ctx.api).then(() => {}), testContext);
      const outcome = await check.then(
        () => 'passed',
        (err: Error) => err.message,
      );
      return { outcome, meta: testContext.task.meta.contract as CheckMeta };
    };
    try {
      const judged = await run(['EXP-01', 'EXP-11']);
      expect(judged.outcome).toMatch(/^clauses failed:\n- EXP-11: exportRoisGeojson 304: header ETag/);
      expect(judged.meta.clauseOutcomes).toEqual({
        'EXP-11': { outcome: 'fail', error: expect.stringMatching(/^EXP-11: /) },
        'EXP-01': { outcome: 'pass' },
      });
      expect((await run(['EXP-01'])).outcome).toBe('passed');
    } finally {
      vi.unstubAllEnvs();
      rmSync(reports, { recursive: true, force: true });
    }
  });
});
