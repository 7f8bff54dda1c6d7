/**
 * Opens the state database of a data folder: `<data folder>/state.sqlite`, locked for this process
 * alone, in WAL mode with
 * `synchronous = FULL`, so a transaction is on disk (WAL frame and its fsync) before the call that
 * commits it returns: what was acknowledged survives `kill -9` and power loss alike. (`NORMAL`
 * would survive `kill -9` but may lose the last transactions on power loss.)
 *
 *   openDatabase(dataDir) -> Database      throws DataFolderError with one line saying what to do
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { SQLITE } from '../../tables/dialect.js';
import { latestVersion, migration, refusalText } from '../../tables/migrate.js';
import { type Schema, SCHEMA } from '../../tables/migrations.js';
import { type Database, DatabaseSync, sqliteResultName } from './node-sqlite.js';
import { ReadMemo } from '../../tables/read-memo.js';
import { performNow } from './statements.js';

export const DATABASE_FILE = 'state.sqlite';
/** The whole-state JSON snapshot written by versions before the database. */
const LEGACY_SNAPSHOT = 'state.json';

export class DataFolderError extends Error {
  override name = 'DataFolderError';
}

export function openDatabase(dataDir: string, schema: Schema = SCHEMA): Database {
  const file = path.join(dataDir, DATABASE_FILE);
  if (!existsSync(file) && existsSync(path.join(dataDir, LEGACY_SNAPSHOT))) {
    throw new DataFolderError(
      `the data folder ${dataDir} holds state in the old JSON snapshot format (state.json), which this ` +
        'version cannot read: start with a new --data-dir (or move that folder aside).',
    );
  }
  let db: Database | undefined;
  try {
    db = new DatabaseSync(file, { timeout: 1000 });
    // One mock per data folder: the first holds an exclusive lock until it closes (or dies, when
    // the system releases it), so a second one is refused instead of sweeping the first's files.
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('BEGIN EXCLUSIVE; COMMIT');
  } catch (err) {
    if (db?.isOpen) db.close();
    if (sqliteResultName(err) === 'SQLITE_BUSY')
      throw new DataFolderError(
        `another mock is using the data folder ${dataDir}: stop it, or start this one with another --data-dir.`,
      );
    throw new DataFolderError(
      `cannot open ${file} as the mock's state database (${(err as Error).message}): ` +
        'point --data-dir at a folder this mock wrote, or at an empty one.',
    );
  }
  db.exec('PRAGMA synchronous = FULL');
  db.exec('PRAGMA foreign_keys = ON');
  // Deleted rows (a revoked key's hash) are overwritten, not left in free pages of the file.
  db.exec('PRAGMA secure_delete = ON');
  migrate(db, file, schema);
  return db;
}

function migrate(db: Database, file: string, schema: Schema): void {
  const refused = (version: number) =>
    new DataFolderError(
      refusalText(schema, version, {
        database: file,
        another: 'another --data-dir',
        elsewhere: 'start this one with another --data-dir',
      }),
    );
  // No reads to keep while migrating: the store opens its own statements afterwards.
  const noReadsKept = new ReadMemo({ entries: 0, rows: 0, rowsPerAnswer: 0 });
  let had: number;
  try {
    had = performNow(db, noReadsKept)(migration(SQLITE, schema, refused));
  } catch (err) {
    db.close();
    throw err;
  }
  // What a step removed leaves the write-ahead log's older frames at once.
  if (had < latestVersion(schema)) db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
}
