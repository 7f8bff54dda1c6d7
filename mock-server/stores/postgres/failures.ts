/**
 * What a PostgreSQL error means to the mock, by its SQLSTATE (or the driver's socket error):
 *
 *   unavailable   the database cannot be reached or answered too late: the request fails cleanly
 *                 (the HTTP layer answers 503 with the detail) and the next one tries again
 *   retryable     the transaction lost a race it can win by running again: serialization failure,
 *                 deadlock, or a guard index (one live share, one identical prediction in flight)
 *                 that another transaction filled first, which the rerun's own check then sees
 *   bad text      a client's string PostgreSQL's text cannot hold (NUL) reached a query: no row can
 *                 match it (stored client text is JSON-escaped), so it is the client's error, not a 5xx
 */
import { DomainError } from '../../domain/errors.js';

/**
 * Indexes that guard a rule across instances (migrations.ts); a violation means "lost the race". The
 * ids and keys the control plane creates are among them: a create looks for its id (or key) and
 * inserts, and two at once both look first; the loser's rerun sees the winner and refuses.
 */
export const GUARD_INDEXES = new Set([
  'shares_one_live_per_segmentation',
  'predictions_one_in_flight',
  'organizations_pkey',
  'api_key_hashes_key_hash_key',
  'models_pkey',
]);

interface PgError {
  code?: string;
  constraint?: string;
  message?: string;
}

const UNAVAILABLE_CODES = new Set([
  '57P01', // admin_shutdown: the server is stopping
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or in recovery
  '57014', // query_canceled: statement_timeout
  '53300', // too_many_connections
  '25P03', // idle_in_transaction_session_timeout
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
]);

/** The database did not answer (down, restarting, unreachable, too slow). */
export class StoreUnavailableError extends DomainError {
  constructor(detail: string, options?: ErrorOptions) {
    // Retry-After: 1, as on every 503 of the mock: the next request tries the database again.
    super('store_unavailable', `The state database is unavailable (${detail}); try again shortly.`, 1);
    this.name = 'StoreUnavailableError';
    this.cause = options?.cause;
  }
}

export function isUnavailable(error: unknown): boolean {
  const { code = '', message = '' } = (error ?? {}) as PgError;
  return (
    UNAVAILABLE_CODES.has(code) ||
    code.startsWith('08') || // connection_exception
    /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|connection is not open|Cannot use a pool after calling end/i.test(
      message,
    )
  );
}

export function isRetryable(error: unknown): boolean {
  const { code, constraint } = (error ?? {}) as PgError;
  return code === '40001' || code === '40P01' || (code === '23505' && GUARD_INDEXES.has(constraint ?? ''));
}

/** The error the domain sees for a failure of PostgreSQL's (the original as `cause`). */
export function asDomainFailure(error: unknown): unknown {
  if (error instanceof DomainError) return error;
  const { code, constraint, message } = (error ?? {}) as PgError;
  if (isUnavailable(error)) return new StoreUnavailableError(message ?? String(error), { cause: error });
  if (code === '22021' || code === '22P05')
    return new DomainError('invalid_input', 'text with a character the state database cannot hold (NUL)');
  if (code === '23505' && GUARD_INDEXES.has(constraint ?? ''))
    return new DomainError('invalid_state', `another request changed this first (${constraint})`);
  return error;
}
