import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runBash } from '../test-support/run-bash.js';
import { startInstantMock } from '../test-support/instant-mock.js';
import type { RunningMock } from './server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The bash block between the README's round-trip markers, as a newcomer pastes it. */
async function roundTrip(): Promise<string> {
  const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('<!-- round-trip:start -->');
  const end = readme.indexOf('<!-- round-trip:end -->');
  expect(start, 'README round-trip markers').toBeGreaterThanOrEqual(0);
  const blocks = [...readme.slice(start, end).matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  expect(blocks, 'one bash block between the markers').toHaveLength(1);
  return blocks[0];
}

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
