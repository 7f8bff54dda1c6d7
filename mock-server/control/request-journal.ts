/**
 * The last N requests and responses, for a partner debugging their client. Entries live in the
 * state store (domain/state.ts JournalTable), so a partner reads every instance's requests in one
 * journal; bodies are truncated when read, not when recorded (recording is on every request's path).
 */
import type { JournalEntry, JournalFilter } from '../domain/control-records.js';
import type { JournalTable } from '../domain/state.js';
import { jsonShape, type JsonShape } from './json-shape.js';

/** An entry as read: its bodies truncated, and the request body's shape taken from it whole. */
export interface JournalEntryRead extends JournalEntry {
  requestShape: JsonShape | null;
}

const BODY_LIMIT = 4096;

export class RequestJournal {
  constructor(private readonly table: JournalTable) {}

  record(entry: JournalEntry): Promise<void> {
    return this.table.record(entry);
  }

  /** Newest first. */
  async query(filter: JournalFilter): Promise<JournalEntryRead[]> {
    const entries = await this.table.query(filter);
    return entries.map((e) => ({
      ...e,
      requestShape: e.requestBody === undefined ? null : jsonShape(e.requestBody),
      requestBody: truncate(e.requestBody),
      responseBody: truncate(e.responseBody),
    }));
  }

  clear(): Promise<void> {
    return this.table.clear();
  }
}

function truncate(body: unknown): unknown {
  if (body === undefined) return undefined;
  const text = JSON.stringify(body);
  return text.length <= BODY_LIMIT ? body : `${text.slice(0, BODY_LIMIT)}… (${text.length} characters)`;
}
