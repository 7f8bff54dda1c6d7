import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runBash } from '../../../test-support/run-bash.js';
import { readmeRoundTrip } from '../../../test-support/readme-round-trip.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { freePort } from '../../../test-support/launched-mock.js';
import { ACME_KEY } from '../../../test-support/api-client.js';
import type { RunningMock } from '../../server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const roundTrip = () => readmeRoundTrip(ROOT);

let mock: RunningMock;
let dir: string;
beforeAll(async () => {
  mock = await startInstantMock();
  // A folder that looks like the checkout (its fixtures), so the CSV the block writes lands there.
  dir = await mkdtemp(path.join(os.tmpdir(), 'cellseg-round-trip-'));
  await symlink(path.join(ROOT, 'fixtures'), path.join(dir, 'fixtures'));
});
afterAll(async () => {
  await mock?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it(
  "the README's round trip runs as pasted and prints the sample's measurements",
  { timeout: 120_000 },
  async () => {
    const script = await roundTrip();
    const { code, stdout, stderr } = await runBash(['-c', script], {
      cwd: dir,
      env: { BASE: `${mock.url}/api/v1` },
    });
    expect(code, `round trip failed\n--- stdout\n${stdout}\n--- stderr\n${stderr}`).toBe(0);

    // `head -3` shows the header and two rows; the file holds every cell of the sample (20).
    expect(stdout.split('\n')[0]).toMatch(/^image_name,image_width,image_height,/);
    const rows = parse(await readFile(path.join(dir, 'cells.csv')), { columns: true }) as object[];
    expect(rows.length).toBeGreaterThanOrEqual(15);
  },
);

/** The lines a failed round trip wrote to stderr (bash's own `-x` noise aside). */
const said = (stderr: string) => stderr.split('\n').filter((line) => line.trim());

it('against a mock that is not running, the round trip ends at once with one line saying why', async () => {
  const script = await roundTrip();
  const started = Date.now();
  const { code, stdout, stderr } = await runBash(['-c', script], {
    cwd: dir,
    env: { BASE: `http://127.0.0.1:${await freePort()}/api/v1` },
  });
  expect(code).not.toBe(0);
  expect(Date.now() - started).toBeLessThan(30_000);
  expect(stdout).toBe('');
  expect(said(stderr)).toHaveLength(1);
  expect(stderr).toMatch(/Failed to connect|Couldn't connect/);
});

it(
  'a prediction that FAILED ends the round trip with one line instead of polling forever',
  { timeout: 120_000 },
  async () => {
    const script = await roundTrip();
    const armed = await fetch(`${mock.url}/__mock/org/predictions/outcomes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ACME_KEY}` },
      body: JSON.stringify({ status: 'FAILED', error: 'GPU out of memory' }),
    });
    expect(armed.status, await armed.text()).toBeLessThan(300);
    const { code, stderr } = await runBash(['-c', script], { cwd: dir, env: { BASE: `${mock.url}/api/v1` } });
    expect(code).not.toBe(0);
    expect(said(stderr)).toEqual(['the prediction is FAILED']);
  },
);

it('an answer with an error status ends the round trip with the status and the answer on one line', async () => {
  const script = await roundTrip().then((text) => text.replace(/KEY=sk_test_\w+/, 'KEY=sk_test_not_a_key'));
  const { code, stderr } = await runBash(['-c', script], { cwd: dir, env: { BASE: `${mock.url}/api/v1` } });
  expect(code).not.toBe(0);
  expect(said(stderr)).toHaveLength(1);
  expect(stderr).toMatch(/^HTTP 401: \{"detail":"Invalid API key"\}/);
});
