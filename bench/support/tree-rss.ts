/**
 * Peak RSS of a process and every process below it (the mock and its decoder children) over a
 * phase. Children come and go (a decoder starts with its first job), so the tree is walked again
 * at each poll, from /proc/<pid>/task/<tid>/children.
 *
 *   const watch = treeRssWatch(pid); ...; watch.stop() -> { start, peak, peakSumOfPeaks }
 *
 * `peak` is the largest sum of VmRSS seen at one poll (every 20 ms): what the machine held at
 * once. A 20 ms poll can miss a short spike, so `peakSumOfPeaks` adds each process's own VmHWM
 * (reset through clear_refs when it is first seen, read at its last poll): an upper bound, since
 * the processes need not have peaked together.
 */
import { writeFileSync } from 'node:fs';
import { procStatus } from './processes.js';
import { descendants } from './process-tree.js';

export function treeRssWatch(pid: number): {
  stop(): { start: number; peak: number; peakSumOfPeaks: number };
} {
  const hwm = new Map<number, number>();
  const sample = (): number => {
    let sum = 0;
    for (const p of descendants(pid)) {
      try {
        if (!hwm.has(p)) {
          try {
            writeFileSync(`/proc/${p}/clear_refs`, '5');
          } catch {
            /* not allowed: VmHWM since the process started, still a bound */
          }
        }
        const s = procStatus(p);
        sum += s.rss;
        hwm.set(p, Math.max(hwm.get(p) ?? 0, s.hwm, s.rss));
      } catch {
        /* exited between the walk and the read */
      }
    }
    return sum;
  };
  const start = sample();
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, sample());
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, sample());
      const peakSumOfPeaks = [...hwm.values()].reduce((a, b) => a + b, 0);
      return { start, peak, peakSumOfPeaks };
    },
  };
}
