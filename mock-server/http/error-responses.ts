import type { ApiResponse } from './exchange.js';
import { DomainError, type DomainErrorKind } from '../domain/errors.js';
import { detailWithoutServerPaths } from './server-paths.js';

/**
 * The status each domain failure answers with. A request the resource's state refuses answers 422
 * on every public operation, an image not ready for predict as a complete or abort out of turn:
 * one status for one kind of error, so generic tools can classify them (openapi.yaml).
 */
const STATUS_OF: Record<DomainErrorKind, number> = {
  not_found: 404,
  cap_reached: 402,
  invalid_state: 422,
  conflict: 409,
  invalid_input: 422,
  not_ready: 422,
  too_large: 413,
  forbidden: 403,
  too_many: 429,
  storage_full: 507,
  store_unavailable: 503,
};

/** Every error body of the API and the control plane goes through here, so none names a server file. */
export function sendDetail(res: ApiResponse, status: number, detail: unknown): void {
  if (res.headersSent) return;
  res.status(status).json({ detail: detailWithoutServerPaths(detail) });
}

/**
 * Domain failures become `{detail: string}` with their status; anything else is the caller's to
 * handle, and so is one that comes once the answer has started (the object store stopped sending
 * what was being streamed): no status can be given then, and the request function cuts the answer.
 */
export function sendDomainError(res: ApiResponse, err: unknown): boolean {
  if (!(err instanceof DomainError) || res.headersSent) return false;
  if (err.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(err.retryAfterSeconds));
  sendDetail(res, STATUS_OF[err.kind], err.message);
  return true;
}
