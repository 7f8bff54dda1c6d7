/**
 * The request journal in this process's memory: the JournalTable of an engine one process owns
 * (SQLite). One ring buffer per organization (and one for requests without one), so that one
 * organization's traffic never evicts another's history. Recording is on every request's path, so
 * it keeps references and leaves copying and merging to the (rare) read.
 */
import { type JournalEntry, journalEntryMatches } from '../../domain/control-records.js';
import type { JournalTable } from '../../domain/state.js';

interface Recorded {
  /** The order of recording across every ring: how a read across organizations merges them. */
  seq: number;
  entry: JournalEntry;
}

class Ring {
  private readonly slots: Array<Recorded | undefined>;
  private next = 0;

  constructor(private readonly capacity: number) {
    this.slots = new Array(capacity);
  }

  add(recorded: Recorded): void {
    this.slots[this.next] = recorded;
    this.next = (this.next + 1) % this.capacity;
  }

  /** Newest first, at most `limit` of those matching. */
  *newest(matches: (e: JournalEntry) => boolean, limit: number): Generator<Recorded> {
    let found = 0;
    for (let i = 1; i <= this.capacity && found < limit; i++) {
      const r = this.slots[(this.next - i + this.capacity) % this.capacity];
      if (!r) return;
      if (matches(r.entry)) {
        found++;
        yield r;
      }
    }
  }
}

export function memoryJournal(entriesPerOrganization = 1000): JournalTable {
  let rings = new Map<string | null, Ring>();
  let seq = 0;
  return {
    async record(entry) {
      let ring = rings.get(entry.organizationId);
      if (!ring) rings.set(entry.organizationId, (ring = new Ring(entriesPerOrganization)));
      ring.add({ seq: seq++, entry });
    },
    async query(filter) {
      const limit = filter.limit ?? 100;
      const matches = (e: JournalEntry) => journalEntryMatches(e, filter);
      const searched =
        filter.organizationId === undefined ? [...rings.values()] : [rings.get(filter.organizationId)];
      const found: Recorded[] = [];
      for (const ring of searched) if (ring) found.push(...ring.newest(matches, limit));
      return found
        .sort((a, b) => b.seq - a.seq)
        .slice(0, limit)
        .map((r) => ({ ...r.entry }));
    },
    async clear() {
      rings = new Map();
      seq = 0;
    },
  };
}
