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

/** The last N requests and responses, for a partner debugging their client. */
export class RequestJournal {
  private entries: JournalEntry[] = [];

  constructor(private readonly capacity = 1000) {}

  record(entry: JournalEntry): void {
    this.entries.push({
      ...entry,
      request_body: truncate(entry.request_body),
      response_body: truncate(entry.response_body),
    });
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
  }

  query(filter: {
    operationId?: string;
    status?: number;
    organizationId?: string;
    limit?: number;
  }): JournalEntry[] {
    const matches = this.entries.filter(
      (e) =>
        (filter.operationId === undefined || e.operation_id === filter.operationId) &&
        (filter.status === undefined || e.status === filter.status) &&
        (filter.organizationId === undefined || e.organization_id === filter.organizationId),
    );
    return matches.reverse().slice(0, filter.limit ?? 100);
  }

  clear(): void {
    this.entries = [];
  }
}

function truncate(body: unknown): unknown {
  if (body === undefined) return undefined;
  const text = JSON.stringify(body);
  return text.length <= BODY_LIMIT ? body : `${text.slice(0, BODY_LIMIT)}… (${text.length} characters)`;
}
