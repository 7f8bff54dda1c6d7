/**
 * Requests counted per key and window in this process's memory: the RateWindowTable of both engines
 * (on PostgreSQL each instance counts its own share: domain/abuse-limits.ts).
 */
import type { RateWindowTable } from '../../domain/state.js';

export function memoryRateWindows(now: () => number = Date.now): RateWindowTable {
  // One entry per key counted (keys are the organizations' key ids), replaced when its window ends.
  const windows = new Map<string, { window: number; count: number }>();
  return {
    async hit(key, windowMs) {
      const window = Math.floor(now() / windowMs);
      const current = windows.get(key);
      const count = current && current.window >= window ? current.count + 1 : 1;
      windows.set(key, { window: Math.max(window, current?.window ?? window), count });
      return count;
    },
  };
}
