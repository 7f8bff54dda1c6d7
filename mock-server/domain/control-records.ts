/** What the control plane keeps between requests: injected faults and the request journal. */
import type { JsonShape } from './json-shape.js';

export interface FaultSpec {
  operationId: string;
  status?: number;
  detail?: string;
  latencyMs?: number;
  dropConnection?: boolean;
  /** Fire this many times, then retire. */
  times?: number;
  /** Fire on each matching request with this probability (until cleared). */
  probability?: number;
  organizationId?: string;
}

export interface Fault extends FaultSpec {
  id: string;
  hits: number;
}

/** One request and its answer, as recorded; http/render/control.ts gives it its wire shape. */
export interface JournalEntry {
  /** ISO date-time the answer ended. */
  at: string;
  requestId: string;
  method: string;
  path: string;
  /** The document's path template the request matched (e.g. /api/v1/predict/{prediction_id}). */
  pathTemplate?: string | null;
  operationId: string | null;
  organizationId: string | null;
  /** 0 when the connection closed before an answer was sent. */
  status: number;
  durationMs: number;
  /** The request's media type without parameters (multipart/form-data for a file). */
  requestMediaType?: string | null;
  /** The JSON bodies (absent for files): whole, or cut to their first characters past the journal's limit (control/request-journal.ts). */
  requestBody?: unknown;
  responseBody?: unknown;
  /** The request body's shape, taken when its body was cut; a whole body gives its shape when read. */
  requestShape?: JsonShape;
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

/** Whether a recorded entry passes a reader's filter (limit aside). */
export function journalEntryMatches(e: JournalEntry, filter: JournalFilter): boolean {
  return (
    (filter.operationId === undefined || e.operationId === filter.operationId) &&
    (filter.status === undefined || e.status === filter.status) &&
    (filter.organizationId === undefined || e.organizationId === filter.organizationId)
  );
}

/** Whether a fault applies to a request of this operation and organization (its probability aside). */
export function faultMatches(f: FaultSpec, operationId: string, organizationId: string | undefined): boolean {
  return (
    f.operationId === operationId && (f.organizationId === undefined || f.organizationId === organizationId)
  );
}
