/**
 * The request journal in this process's memory: the JournalTable of an engine one process owns
 * (SQLite). A ring buffer: recording is on every request's path, so it keeps references and
 * leaves copying to the (rare) read.
 */
import { type JournalEntry, journalEntryMatches } from '../../domain/control-records.js';
import type { JournalTable } from '../../domain/state.js';

export function memoryJournal(capacity = 1000): JournalTable {
  let entries: Array<JournalEntry | undefined> = new Array(capacity);
  let next = 0;
  return {
    async record(entry) {
      entries[next] = entry;
      next = (next + 1) % capacity;
    },
    async query(filter) {
      const limit = filter.limit ?? 100;
      const out: JournalEntry[] = [];
      for (let i = 1; i <= capacity && out.length < limit; i++) {
        const e = entries[(next - i + capacity) % capacity];
        if (!e) break;
        if (journalEntryMatches(e, filter)) out.push({ ...e });
      }
      return out;
    },
    async clear() {
      entries = new Array(capacity);
      next = 0;
    },
  };
}
