/** A journal entry as `GET /__mock/journal` answers it, and the catalogue's view of one. */
import type { components } from '../../openapi/generated/mock-control-types.js';
import type { SeenRequest } from '../control/readiness/readiness-cases.js';

export type JournalEntry = components['schemas']['MockJournalEntry'];

export function seenRequest(e: JournalEntry): SeenRequest {
  return {
    at: e.at,
    method: e.method,
    path: e.path,
    operationId: e.operation_id ?? null,
    status: e.status,
    durationMs: e.duration_ms ?? 0,
    fault: e.fault ?? null,
    responseBody: e.response_body,
  };
}

/** The client's own requests (not the control plane's), oldest first. */
export function clientRequests(entries: readonly JournalEntry[]): SeenRequest[] {
  return entries
    .filter((e) => !e.path.startsWith('/__mock'))
    .map(seenRequest)
    .sort((a, b) => a.at.localeCompare(b.at));
}

export const describeRequest = (r: SeenRequest) =>
  `${r.at} ${r.method} ${r.path} → ${r.status === 0 ? 'connection dropped' : r.status}${r.fault ? ' (armed)' : ''} ${Math.round(r.durationMs)} ms`;
