/**
 * What a client has met, read from its organization's journal: each operation it called with the
 * statuses the document lists for it, which of them it has received, and each case of the
 * catalogue it could meet and has not. Pure: requests and the document's statuses in.
 */
import { caseApplies, READINESS_CASES, type CaseId, type SeenRequest } from './readiness-cases.js';

export interface OperationExposure {
  operationId: string;
  calls: number;
  /** The statuses the document lists for the operation. */
  documented: number[];
  /** What the client received (0: the connection closed before an answer). */
  received: number[];
  /** Listed in the document and never received. */
  notReceived: number[];
}

export interface CaseExposure {
  id: CaseId;
  title: string;
  /** Sits on an operation the client calls. */
  applies: boolean;
  met: boolean;
  /** The request that shows it met. */
  evidence: { at: string; operationId: string | null; status: number; path: string } | null;
}

export interface Exposure {
  requests: number;
  /** When the oldest request read was made. */
  since: string | null;
  /**
   * The read holds as many as the journal keeps of the organization: older requests were pushed
   * out (by its own client or any other with its keys), and what they met is not seen.
   */
  overflowed: boolean;
  operations: OperationExposure[];
  cases: CaseExposure[];
}

/**
 * `documented`: the statuses of each operation of the document (openapi/openapi.yaml); `keeps`:
 * how many requests of an organization the journal keeps.
 */
export function exposureOf(
  requests: readonly SeenRequest[],
  documented: ReadonlyMap<string, readonly number[]>,
  keeps = Infinity,
): Exposure {
  const oldestFirst = [...requests].sort((a, b) => a.at.localeCompare(b.at));
  const byOperation = new Map<string, SeenRequest[]>();
  for (const r of oldestFirst)
    if (r.operationId && documented.has(r.operationId))
      byOperation.set(r.operationId, [...(byOperation.get(r.operationId) ?? []), r]);
  const operations = [...byOperation].map(([operationId, calls]): OperationExposure => {
    const listed = [...(documented.get(operationId) ?? [])].sort((a, b) => a - b);
    const received = [...new Set(calls.map((c) => c.status))].sort((a, b) => a - b);
    return {
      operationId,
      calls: calls.length,
      documented: listed,
      received,
      notReceived: listed.filter((s) => !received.includes(s)),
    };
  });
  const called = oldestFirst.filter((r) => r.operationId && documented.has(r.operationId));
  const cases = READINESS_CASES.map((c): CaseExposure => {
    const seen = c.metBy(oldestFirst);
    return {
      id: c.id,
      title: c.title,
      applies: caseApplies(c, called),
      met: seen !== undefined,
      evidence: seen
        ? { at: seen.at, operationId: seen.operationId, status: seen.status, path: seen.path }
        : null,
    };
  });
  const since = oldestFirst[0]?.at ?? null;
  return { requests: requests.length, since, overflowed: requests.length >= keeps, operations, cases };
}

/** The statuses each operation of a parsed OpenAPI document lists. */
export function documentedStatuses(document: {
  paths?: Record<string, Record<string, unknown>>;
}): Map<string, number[]> {
  const statuses = new Map<string, number[]>();
  for (const item of Object.values(document.paths ?? {}))
    for (const operation of Object.values(item)) {
      const op = operation as { operationId?: string; responses?: Record<string, unknown> };
      if (!op?.operationId || !op.responses) continue;
      const listed = Object.keys(op.responses)
        .map(Number)
        .filter((s) => Number.isInteger(s));
      statuses.set(op.operationId, [...new Set([...(statuses.get(op.operationId) ?? []), ...listed])]);
    }
  return statuses;
}
