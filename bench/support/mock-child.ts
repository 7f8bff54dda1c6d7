/**
 * The mock in its own process, so its memory is measured apart from the load generator.
 *
 *   node --import tsx bench/support/mock-child.ts [dataDir]
 *
 * Prints one JSON line `{"url": ..., "pid": ...}` on stdout once listening. With an IPC channel
 * (spawned by bench/support/processes.ts) it answers `{cmd: 'mem', gc?: boolean}` with
 * `process.memoryUsage()` and `{cmd: 'exit'}` by closing the mock, removing the data folder it
 * made (when none was given) and exiting normally (so that `--cpu-prof` writes its profile).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startMockServer } from '../../mock-server/server.js';

const ownDataDir = !process.argv[2];
const dataDir = process.argv[2] || (await mkdtemp(path.join(os.tmpdir(), 'bench-mock-')));
const mock = await startMockServer({
  port: 0,
  logLevel: 'silent',
  predictionStartDelayMs: 0,
  predictionRunDelayMs: 0,
  dataDir,
  // The hostile section's isolation rows run a mock with a rate limit (sections/hostile-isolation.ts).
  rateLimitPerSecond: Number(process.env.BENCH_RATE_LIMIT_PER_SECOND ?? 0),
});
const gc = (globalThis as { gc?: () => void }).gc;

process.on('message', (raw) => {
  const msg = raw as { id: number; cmd: string; gc?: boolean };
  if (msg.cmd === 'mem') {
    if (msg.gc && gc) gc();
    process.send?.({ id: msg.id, mem: process.memoryUsage() });
  } else if (msg.cmd === 'exit') {
    void mock
      .close()
      .then(() => (ownDataDir ? rm(dataDir, { recursive: true, force: true }) : undefined))
      .finally(() => {
        process.send?.({ id: msg.id, ok: true });
        process.exit(0);
      });
  }
});
process.stdout.write(JSON.stringify({ url: mock.url, pid: process.pid, dataDir }) + '\n');
