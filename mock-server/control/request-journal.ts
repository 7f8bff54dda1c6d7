/** One request and its answer, as recorded; http/render/control.ts gives it its wire shape. */
export interface JournalEntry {
  /** ISO date-time the answer ended. */
  at: string;
  requestId: string;
  method: string;
  path: string;
  operationId: string | null;
  organizationId: string | null;
  /** 0 when the connection closed before an answer was sent. */
  status: number;
  durationMs: number;
  /** The JSON bodies as they were, truncated only when read (absent for files). */
  requestBody?: unknown;
  responseBody?: unknown;
  /** The id of the fault that fired on it. */
  fault: string | null;
}

/** Which entries a reader wants; `limit` defaults to 100. */
export interface JournalFilter {
  operationId?: string;
  status?: number;
  organizationId?: string;
  limit?: number;
}

const BODY_LIMIT = 4096;

/**
 * The last N requests and responses, for a partner debugging their client. A ring buffer: recording
 * is on every request's path, so it keeps references and leaves truncation to the (rare) read.
 */
export class RequestJournal {
  private readonly entries: Array<JournalEntry | undefined>;
  private next = 0;

  constructor(private readonly capacity = 1000) {
    this.entries = new Array(capacity);
  }

  record(entry: JournalEntry): void {
    this.entries[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
  }

  /** Newest first. */
  query(filter: JournalFilter): JournalEntry[] {
    const limit = filter.limit ?? 100;
    const out: JournalEntry[] = [];
    for (let i = 1; i <= this.capacity && out.length < limit; i++) {
      const e = this.entries[(this.next - i + this.capacity) % this.capacity];
      if (!e) break;
      if (filter.operationId !== undefined && e.operationId !== filter.operationId) continue;
      if (filter.status !== undefined && e.status !== filter.status) continue;
      if (filter.organizationId !== undefined && e.organizationId !== filter.organizationId) continue;
      out.push({ ...e, requestBody: truncate(e.requestBody), responseBody: truncate(e.responseBody) });
    }
    return out;
  }

  clear(): void {
    this.entries.fill(undefined);
    this.next = 0;
  }
}

function truncate(body: unknown): unknown {
  if (body === undefined) return undefined;
  const text = JSON.stringify(body);
  return text.length <= BODY_LIMIT ? body : `${text.slice(0, BODY_LIMIT)}… (${text.length} characters)`;
}
