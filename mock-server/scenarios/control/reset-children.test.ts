/**
 * `POST /__mock/reset` hands back the memory of the decoder children: the idle ones stop at once
 * (they hold what their heaps and libvips grew to), and the next job starts a fresh one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { apiClient, resetMock } from '../../../test-support/api-client.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';

/** This process's child processes running a decoder (child-main), from /proc. */
function decoderChildren(): Set<number> {
  const found = new Set<number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('child-main')) found.add(Number(entry));
    } catch {
      // ended while being read
    }
  }
  return found;
}

it('stops the idle decoder children on reset, and the next upload starts a fresh one', async () => {
  const before = decoderChildren();
  // pools of its own (a decoder setting given), not the shared ones of the test process
  const mock = await startInstantMock({ decoderProcesses: 1, workerThreads: 1 });
  try {
    await apiClient(mock.url).completedSegmentation();
    const started = [...decoderChildren()].filter((pid) => !before.has(pid));
    expect(started.length).toBeGreaterThan(0);
    // the reset answers once they have exited (not when their idle time would have run out)
    await resetMock(mock.url);
    for (const pid of started) expect(() => process.kill(pid, 0)).toThrow();
    await apiClient(mock.url).uploadTiff();
    expect([...decoderChildren()].filter((pid) => !before.has(pid)).length).toBeGreaterThan(0);
  } finally {
    await mock.close();
  }
});
