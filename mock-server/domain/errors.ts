/**
 * Failures the domain reports, by kind. The HTTP layer maps each kind to a status code and an error
 * body; nothing in the domain knows about status codes.
 */
export type DomainErrorKind =
  | 'not_found'
  | 'cap_reached'
  | 'invalid_state'
  /** An id or a key the request would create is already in use. */
  | 'conflict'
  | 'invalid_input'
  | 'not_ready'
  | 'too_large'
  | 'forbidden'
  /** An abuse limit of the sandbox (requests per second, open uploads, predictions in flight): retry later. */
  | 'too_many'
  /** The mock's disk (database or files) is full: nothing of the request was kept. */
  | 'storage_full'
  /** The shared state database did not answer (down, restarting, too slow): nothing was kept. */
  | 'store_unavailable';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    /** For `too_many` and `store_unavailable`: seconds to wait before trying again (the `Retry-After` header). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

/** A store (objects or the state database) that could not answer now: the same work may succeed later. */
export const isStoreUnavailable = (err: unknown): err is DomainError =>
  err instanceof DomainError && err.kind === 'store_unavailable';

/**
 * A write the disk had no room for: ENOSPC or EDQUOT by its code, or by its words where it crossed
 * from a child process or came from libvips, which keep only the message.
 */
export function isDiskFull(err: unknown): boolean {
  if (err instanceof DomainError) return err.kind === 'storage_full';
  if (!(err instanceof Error)) return false;
  const { code } = err as NodeJS.ErrnoException;
  return (
    code === 'ENOSPC' ||
    code === 'EDQUOT' ||
    /\b(ENOSPC|EDQUOT)\b|No space left on device|Disk quota exceeded/i.test(err.message)
  );
}

/**
 * Background work (a conversion, a segmentation) that met a full disk: the disk is the mock's, not
 * the client's file's, so the work is put off as for a store that does not answer, and run again.
 */
export const diskFullForNow = () =>
  new DomainError('store_unavailable', "The mock's disk is unavailable (full); try again shortly.", 1);

export const notFound = (what: string) => new DomainError('not_found', `${what} not found`);

/** A row of the caller's organization; another organization's is not found, as a missing one is. */
export function ownRow<T extends { organizationId: string }>(
  row: T | undefined,
  org: { id: string },
  what: string,
): T {
  if (row?.organizationId !== org.id) throw notFound(what);
  return row;
}

export const storageFull = () =>
  new DomainError(
    'storage_full',
    "The mock's disk is full: nothing of this request was saved. Free space in its data folder and try again.",
  );
