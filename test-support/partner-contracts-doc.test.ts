import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningMock } from '../mock-server/server.js';
import { startInstantMock } from './instant-mock.js';
import { REPO_ROOT } from './launched-mock.js';
import { runBash } from './run-bash.js';

/** The one bash block between docs/partner-contracts.md's markers, exactly as a partner pastes it. */
async function workedExample(): Promise<string> {
  const doc = await readFile(path.join(REPO_ROOT, 'docs', 'partner-contracts.md'), 'utf8');
  const start = doc.indexOf('<!-- partner:start -->');
  const end = doc.indexOf('<!-- partner:end -->');
  expect(start, 'worked example markers').toBeGreaterThanOrEqual(0);
  expect(end).toBeGreaterThan(start);
  const blocks = [...doc.slice(start, end).matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  expect(blocks, 'exactly one bash block between the markers').toHaveLength(1);
  return blocks[0];
}

let mock: RunningMock;
let dir: string;

beforeAll(async () => {
  mock = await startInstantMock();
  dir = await mkdtemp(path.join(os.tmpdir(), 'partner-doc-'));
});
afterAll(async () => {
  await mock?.close();
  await rm(dir, { recursive: true, force: true });
});

it(
  'docs/partner-contracts.md: records the client run and verifies it against the mock, as written',
  { timeout: 600_000 },
  async () => {
    const script = path.join(dir, 'partner.sh');
    await writeFile(script, await workedExample());
    // The run's settings come from the block alone, never from a CONTRACT_* variable of the shell.
    const cleared = Object.fromEntries(
      Object.keys(process.env)
        .filter((name) => name.startsWith('CONTRACT_'))
        .map((name) => [name, '']),
    );
    const run = await runBash([script], { cwd: REPO_ROOT, env: { ...cleared, MOCK: mock.url, DIR: dir } });
    expect(run.code, `worked example failed\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`).toBe(0);
    expect(run.stdout).toContain('Recorded 5 interaction(s)');
    const contract = JSON.parse(await readFile(path.join(dir, 'partner.json'), 'utf8'));
    expect(contract.consumer.name).toBe('acme-lims');
    expect(contract.interactions.map((i: { key: string }) => i.key)).toEqual([
      '001-listModels',
      '002-uploadImage',
      '003-createPrediction',
      '004-getPrediction',
      '005-exportMeasurementsCsv',
    ]);
    expect(await readFile(path.join(dir, 'reports', 'partner.md'), 'utf8')).toContain(
      'Interactions: 5 pass, 0 fail, 0 skipped.',
    );
    expect(await readFile(path.join(dir, 'reports', 'junit.xml'), 'utf8')).toContain(
      'tests="5" failures="0"',
    );
  },
);

it(
  'cellseg-mock contract record: says what it needs, and which key was refused',
  { timeout: 60_000 },
  async () => {
    const bin = (args: string) =>
      runBash(['-c', `node bin/cellseg-mock.js contract ${args}`], { cwd: REPO_ROOT, env: {} });
    const usage = await bin('record --out x.json');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("expected 'contract record --org <key> --out <file>'");
    const refused = await bin(`record --org sk_test_nobody --out ${dir}/x.json --base-url ${mock.url}`);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('refused the organization');
  },
);
