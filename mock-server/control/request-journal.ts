export interface JournalEntry {
  at: string;
  request_id: string;
  method: string;
  path: string;
  operation_id: string | null;
  organization_id: string | null;
  status: number;
  duration_ms: number;
  request_body?: unknown;
  response_body?: unknown;
  fault: string | null;
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
  query(filter: {
    operationId?: string;
    status?: number;
    organizationId?: string;
    limit?: number;
  }): JournalEntry[] {
    const limit = filter.limit ?? 100;
    const out: JournalEntry[] = [];
    for (let i = 1; i <= this.capacity && out.length < limit; i++) {
      const e = this.entries[(this.next - i + this.capacity) % this.capacity];
      if (!e) break;
      if (filter.operationId !== undefined && e.operation_id !== filter.operationId) continue;
      if (filter.status !== undefined && e.status !== filter.status) continue;
      if (filter.organizationId !== undefined && e.organization_id !== filter.organizationId) continue;
      out.push({ ...e, request_body: truncate(e.request_body), response_body: truncate(e.response_body) });
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
