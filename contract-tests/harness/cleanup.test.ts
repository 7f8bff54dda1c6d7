import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { Cleanup, ledgerFile } from './cleanup.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'cleanup-'));
  vi.stubEnv('CONTRACT_REPORT_DIR', dir);
});
afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

it('undoes at once what a cut body still creates after the cleanup ran', async () => {
  const cleanup = new Cleanup();
  const undone: string[] = [];
  const entry = (id: string) => ({ kind: 'image' as const, id, owner: 'main', baseUrl: 'http://t' });
  cleanup.add(async () => undone.push('early'), entry('early'));
  await cleanup.run();
  cleanup.add(async () => undone.push('late'), entry('late'));
  await vi.waitFor(() => expect(undone).toEqual(['early', 'late']));
  await vi.waitFor(() => {
    const lines = readFileSync(ledgerFile(), 'utf8').trim().split('\n');
    expect(
      lines.map((l) => JSON.parse(l) as { id: string; done?: boolean }).filter((e) => e.done),
    ).toHaveLength(2);
  });
});
