/** Named counts in this process's memory: the CounterTable of an engine one process owns (SQLite). */
import type { CounterTable } from '../../domain/state.js';

export function memoryCounters(): CounterTable {
  const counts = new Map<string, number>();
  return {
    async increment(key) {
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      return count;
    },
    async get(key) {
      return counts.get(key) ?? 0;
    },
    async delete(key) {
      counts.delete(key);
    },
    async clear() {
      counts.clear();
    },
  };
}
