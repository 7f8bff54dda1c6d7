import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { REPO_ROOT } from '../../../test-support/launched-mock.js';
import { runBash } from '../../../test-support/run-bash.js';
import type { RunningMock } from '../../server.js';

/** The bash block between docs/persistence.md's snapshot-example markers, as a reader pastes it. */
async function example(): Promise<string> {
  const page = await readFile(path.join(REPO_ROOT, 'docs', 'persistence.md'), 'utf8');
  const start = page.indexOf('<!-- snapshot-example:start -->');
  const end = page.indexOf('<!-- snapshot-example:end -->');
  expect(start, 'snapshot-example markers').toBeGreaterThanOrEqual(0);
  const blocks = [...page.slice(start, end).matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  expect(blocks, 'one bash block between the markers').toHaveLength(1);
  return blocks[0];
}

let mock: RunningMock;
let other: RunningMock;
let dir: string;
beforeAll(async () => {
  [mock, other] = await Promise.all([startInstantMock(), startInstantMock()]);
  dir = await mkdtemp(path.join(os.tmpdir(), 'cellseg-snapshot-example-'));
  await symlink(path.join(REPO_ROOT, 'fixtures'), path.join(dir, 'fixtures'));
});
afterAll(async () => {
  await Promise.all([mock?.close(), other?.close()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("docs/persistence.md's snapshot example runs as written and prints what the page says", async () => {
  const { code, stdout, stderr } = await runBash(['-c', await example()], {
    cwd: dir,
    env: { MOCK: mock.url, OTHER: other.url },
  });
  expect(code, `example failed\n--- stdout\n${stdout}\n--- stderr\n${stderr}`).toBe(0);
  expect(stdout.trim().split('\n')).toEqual([
    'manifest.json',
    'rows/organizations.jsonl',
    '1',
    'ready',
    '86400000',
  ]);
});
