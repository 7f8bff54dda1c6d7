/**
 * The last N requests and responses, for a partner debugging their client. Entries live in the
 * state store (domain/state.ts JournalTable), so a partner reads every instance's requests in one
 * journal. A body longer than BODY_LIMIT characters of JSON is kept cut to its first BODY_LIMIT,
 * with its length (and, for a request, its shape): kept whole, a client's 0.9 MB bodies took 0.9 MB
 * of memory an entry, up to a thousand entries of each organization. Recording is on every request's
 * path, so whether a body is long is told from the length its reader or writer already knows,
 * and only a long one is serialised again.
 */
import type { JournalEntry, JournalFilter } from '../domain/control-records.js';
import { jsonShape, type JsonShape } from '../domain/json-shape.js';
import type { JournalTable } from '../domain/state.js';

/** An entry as read: the request body's shape, whether or not its body was cut. */
export interface JournalEntryRead extends Omit<JournalEntry, 'requestShape'> {
  requestShape: JsonShape | null;
}

/** The lengths of an entry's JSON bodies as they came in and went out, in characters. */
export interface BodyLengths {
  request: number;
  response: number;
}

const BODY_LIMIT = 4096;

export class RequestJournal {
  private readonly watchers = new Set<(entry: JournalEntryRead) => void>();

  constructor(private readonly table: JournalTable) {}

  record(entry: JournalEntry, lengths: BodyLengths): Promise<void> {
    const request = cut(entry.requestBody, lengths.request);
    const response = cut(entry.responseBody, lengths.response);
    const kept =
      request === entry.requestBody && response === entry.responseBody
        ? entry
        : {
            ...entry,
            requestBody: request,
            responseBody: response,
            ...(request === entry.requestBody ? {} : { requestShape: jsonShape(entry.requestBody) }),
          };
    const recorded = this.table.record(kept);
    // Unwatched, the table's own promise: a batching table answers a batch's entries with one,
    // which the request log then watches once per batch, not once per request.
    if (this.watchers.size === 0) return recorded;
    return recorded.then(() => {
      for (const watcher of this.watchers)
        try {
          watcher(asRead(kept));
        } catch {
          // a watcher's own failure: the entry is kept, and the other watchers still see it
        }
    });
  }

  /**
   * Hands `watcher` every entry this process records from now on, as a read answers it: a reader
   * in this process (a readiness run's own mock) misses none, however many a busy client sends
   * between two reads and however few the journal keeps. Answers how to stop.
   */
  watch(watcher: (entry: JournalEntryRead) => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** Newest first. */
  async query(filter: JournalFilter): Promise<JournalEntryRead[]> {
    return (await this.table.query(filter)).map(asRead);
  }

  clear(): Promise<void> {
    return this.table.clear();
  }
}

const asRead = (e: JournalEntry): JournalEntryRead => ({
  ...e,
  requestShape: e.requestShape ?? (e.requestBody === undefined ? null : jsonShape(e.requestBody)),
});

/**
 * The body as the journal keeps it. `length` bounds its JSON text from above (a body read is never
 * shorter as it came in than serialised again), so a body within the limit is kept as it is.
 */
function cut(body: unknown, length: number): unknown {
  if (body === undefined || length <= BODY_LIMIT) return body;
  const text = JSON.stringify(body);
  if (text.length <= BODY_LIMIT) return body;
  // A copy: V8 keeps a slice of a long string as a view of all of it, which would keep the body.
  const start = Buffer.from(text.slice(0, BODY_LIMIT)).toString();
  return `${start}… (${text.length} characters)`;
}
