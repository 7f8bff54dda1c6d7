/**
 * The loader of node:sqlite keeps the mock's output clean without hiding anything else, and reads
 * node:sqlite's errors by SQLite's result codes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DatabaseSync, sqliteResultName } from './node-sqlite.js';

const dirs: string[] = [];
function folder(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'node-sqlite-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** What a failing statement threw. */
function thrownBy(work: () => unknown): unknown {
  try {
    work();
  } catch (err) {
    return err;
  }
  throw new Error('expected the statement to fail');
}

describe('node:sqlite as the mock loads it', () => {
  it("drops only node:sqlite's ExperimentalWarning: other warnings, experimental ones included, still print", () => {
    const loader = fileURLToPath(new URL('./node-sqlite.ts', import.meta.url));
    const script = [
      `const { DatabaseSync } = await import(${JSON.stringify(loader)});`,
      "new DatabaseSync(':memory:').close();",
      "process.emitWarning('another feature is experimental', 'ExperimentalWarning');",
      "process.emitWarning('a plain warning');",
    ].join('\n');
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).not.toContain('SQLite is an experimental feature');
    expect(run.stderr).toContain('ExperimentalWarning: another feature is experimental');
    expect(run.stderr).toContain('Warning: a plain warning');
  });

  it('names the SQLite result of an error: busy, not a database, or the code it does not name', () => {
    const file = path.join(folder(), 'a.sqlite');
    const holder = new DatabaseSync(file);
    holder.exec(
      'PRAGMA locking_mode = EXCLUSIVE; CREATE TABLE t (id TEXT PRIMARY KEY); BEGIN EXCLUSIVE; COMMIT',
    );
    const second = new DatabaseSync(file);
    expect(sqliteResultName(thrownBy(() => second.exec('SELECT * FROM t')))).toBe('SQLITE_BUSY');
    second.close();
    holder.exec("INSERT INTO t VALUES ('a')");
    // A primary-key clash is SQLITE_CONSTRAINT_PRIMARYKEY (1555), which the mock does not name.
    expect(sqliteResultName(thrownBy(() => holder.exec("INSERT INTO t VALUES ('a')")))).toBe(
      'SQLite result 1555',
    );
    holder.close();

    const text = path.join(folder(), 'text.sqlite');
    writeFileSync(text, 'not a database at all, just text '.repeat(100));
    const notDb = new DatabaseSync(text);
    expect(sqliteResultName(thrownBy(() => notDb.exec('PRAGMA journal_mode = WAL')))).toBe('SQLITE_NOTADB');
    notDb.close();
    expect(sqliteResultName(new Error('not from SQLite'))).toBeUndefined();
  });
});
