/**
 * An instance started while its PostgreSQL is not answering yet: it waits, saying so, and gives up
 * with one line that names the database.
 *
 * Why wait rather than exit at once: an instance and its database are usually started together (a
 * compose file, a cluster coming back after an outage, the machine booting), and the database is
 * often the slower one. Exiting at once would make every such start a crash loop that only a
 * supervisor's restart policy ends, and a start by hand would fail for a database that is seconds
 * away. Waiting without end would hide a wrong URL. So: retried, with a line each time, for a bounded
 * time (`--database-wait-ms`, 0 for a single try), then a clear error and exit code 1.
 *
 * Only "not answering" is waited for (refused, reset, starting up, a name not resolving yet). A
 * database that answers and refuses (a wrong password, no such database) fails at once: waiting
 * would not change its answer.
 *
 * No import of the driver here: main.ts recognises the error without loading `pg`.
 */
import { StoreUnavailableError } from './failures.js';

/** The start-up failed because of the database: main.ts prints its message alone, on one line. */
export class DatabaseStartError extends Error {
  override readonly name = 'DatabaseStartError';
}

export interface DatabaseWait {
  /** The database's URL; its password is never shown. */
  url: string;
  /** How long opening keeps trying a database that does not answer (default 0: one try). */
  waitMs?: number;
  /** Told each time a try failed and another follows. */
  onWaiting?: (line: string) => void;
}

/** The longest pause between two tries: a database that came back is joined within this. */
const MAX_PAUSE_MS = 2_000;

/** The URL as a log line may show it: the password replaced by `***`. */
export function shownDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    // Not a URL the driver could use either; nothing of it is repeated.
    return '(the database URL)';
  }
}

/** Runs `open` until it does not fail for want of a database, within `waitMs`. */
export async function waitForDatabase<T>(
  open: () => Promise<T>,
  { url, waitMs = 0, onWaiting }: DatabaseWait,
): Promise<T> {
  const shown = shownDatabaseUrl(url);
  const deadline = Date.now() + waitMs;
  for (let tries = 1; ; tries++) {
    try {
      return await open();
    } catch (error) {
      const refusal = refusedBy(error, shown);
      if (refusal) throw refusal;
      if (!(error instanceof StoreUnavailableError)) throw error;
      const reason = reasonOf(error);
      const left = deadline - Date.now();
      if (left <= 0) {
        const within = waitMs > 0 ? ` within ${seconds(waitMs)} s` : '';
        throw new DatabaseStartError(
          `PostgreSQL at ${shown} did not answer${within} (${reason}): start it, or correct --database-url / DATABASE_URL; --database-wait-ms sets how long an instance waits for it`,
          { cause: error },
        );
      }
      onWaiting?.(
        `PostgreSQL at ${shown} is not answering (${reason}); trying again, for up to ${seconds(left)} s more (--database-wait-ms)`,
      );
      const pause = Math.min(left, MAX_PAUSE_MS, 250 * 2 ** (tries - 1));
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** A database that answered and said no: the login, the password or the database's name. */
function refusedBy(error: unknown, shown: string): DatabaseStartError | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code !== 'string' || !(code.startsWith('28') || code === '3D000')) return undefined;
  return new DatabaseStartError(
    `PostgreSQL at ${shown} refused this instance: ${String(message)} (check the user, password and database of --database-url / DATABASE_URL)`,
    { cause: error },
  );
}

function reasonOf(error: StoreUnavailableError): string {
  const cause = error.cause as { message?: unknown } | undefined;
  return typeof cause?.message === 'string' && cause.message !== '' ? cause.message : error.message;
}

const seconds = (ms: number) => Math.ceil(ms / 1000);
