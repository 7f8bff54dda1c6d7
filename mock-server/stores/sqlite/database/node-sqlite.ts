/**
 * Node's built-in SQLite (`node:sqlite`): no native addon to build at install, the same engine on
 * every platform Node runs on.
 *
 *   DatabaseSync                    the connection class
 *   sqliteResultName(err)           'SQLITE_BUSY', 'SQLITE_FULL', ... for an error node:sqlite threw
 */
import { createRequire } from 'node:module';
import type * as NodeSqlite from 'node:sqlite';

export type Database = NodeSqlite.DatabaseSync;
export type Statement = NodeSqlite.StatementSync;

/**
 * node:sqlite announces itself with an ExperimentalWarning on stderr the first time it loads (Node
 * 22.23 does; 24.21 no longer does), which a partner reads as something wrong with the mock. That one
 * warning is dropped by wrapping process.emitWarning only while the module loads: every other
 * warning, and any warning emitted later, still prints. (--disable-warning=ExperimentalWarning
 * would hide every experimental feature's warning, not just this one.) The module is loaded with
 * require rather than a static import because a static import of a built-in runs before any code
 * of this module could install the wrapper.
 */
function loadWithoutItsWarning(): typeof NodeSqlite {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (warning: string | Error, ...rest: unknown[]) {
    const message = typeof warning === 'string' ? warning : warning.message;
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    if (type === 'ExperimentalWarning' && /^SQLite is an experimental feature/.test(message)) return;
    return (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return createRequire(import.meta.url)('node:sqlite') as typeof NodeSqlite;
  } catch (err) {
    throw new Error(
      `this mock needs Node 22.19 or newer (for node:sqlite); it runs on Node ${process.versions.node}`,
      { cause: err },
    );
  } finally {
    process.emitWarning = emitWarning;
  }
}

export const { DatabaseSync } = loadWithoutItsWarning();

/**
 * SQLite's result codes the mock acts on. node:sqlite throws an Error with
 * `code: 'ERR_SQLITE_ERROR'`, SQLite's extended result code in `errcode` and its text in `errstr`
 * (the same on Node 22.23 and 24.21). An extended code the mock names is returned by that name,
 * any other by its primary code (the low byte).
 */
const EXTENDED_NAMES: Readonly<Record<number, string>> = { 778: 'SQLITE_IOERR_WRITE' };
const PRIMARY_NAMES: Readonly<Record<number, string>> = {
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  10: 'SQLITE_IOERR',
  13: 'SQLITE_FULL',
  26: 'SQLITE_NOTADB',
};

export function sqliteResultName(err: unknown): string | undefined {
  const errcode = (err as { errcode?: unknown } | null)?.errcode;
  if (typeof errcode !== 'number') return undefined;
  return EXTENDED_NAMES[errcode] ?? PRIMARY_NAMES[errcode & 0xff] ?? `SQLite result ${errcode}`;
}
