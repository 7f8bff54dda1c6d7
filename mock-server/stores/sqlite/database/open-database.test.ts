import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { latestVersion } from '../../tables/migrate.js';
import { SCHEMA } from '../../tables/migrations.js';
import type { Database } from './node-sqlite.js';
import { DataFolderError, openDatabase } from './open-database.js';

const dirs: string[] = [];
function folder(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'db-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A pragma's value: the first column of its first row. */
const pragma = (db: Database, name: string): unknown =>
  Object.values(db.prepare(`PRAGMA ${name}`).get() ?? {})[0];

describe('openDatabase', () => {
  it('creates the schema at its version, in WAL mode with synchronous FULL', () => {
    const db = openDatabase(folder());
    expect(pragma(db, 'user_version')).toBe(latestVersion(SCHEMA));
    expect(pragma(db, 'journal_mode')).toBe('wal');
    expect(pragma(db, 'synchronous')).toBe(2); // FULL
    db.close();
  });

  it('migrates an older data folder step by step and keeps its rows', () => {
    const dir = folder();
    const v1 = ['CREATE TABLE things (id TEXT PRIMARY KEY)'];
    const old = openDatabase(dir, { first: 1, steps: v1 });
    old.prepare("INSERT INTO things VALUES ('kept')").run();
    old.close();
    const db = openDatabase(dir, {
      first: 1,
      steps: [...v1, "ALTER TABLE things ADD COLUMN note TEXT NOT NULL DEFAULT 'new'"],
    });
    expect(pragma(db, 'user_version')).toBe(2);
    expect(db.prepare('SELECT id, note FROM things').all()).toEqual([{ id: 'kept', note: 'new' }]);
    db.close();
  });

  it("counts versions from the schema's first: a new folder takes every step, an older one only those it lacks", () => {
    const schema = (...steps: string[]) => ({ first: 7, steps });
    const fresh = openDatabase(folder(), schema('CREATE TABLE a (x)', 'CREATE TABLE b (x)'));
    expect(pragma(fresh, 'user_version')).toBe(8);
    fresh.close();
    const dir = folder();
    openDatabase(dir, schema('CREATE TABLE a (x)')).close();
    const db = openDatabase(dir, schema('CREATE TABLE a (x)', 'CREATE TABLE b (x)'));
    expect(pragma(db, 'user_version')).toBe(8);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all()).toEqual([
      { name: 'a' },
      { name: 'b' },
    ]);
    db.close();
  });

  it('refuses a data folder from before the first step, saying how to carry its state across', () => {
    const dir = folder();
    const old = openDatabase(dir, { first: 1, steps: ['CREATE TABLE a (x)'] });
    old.exec(`PRAGMA user_version = ${SCHEMA.first - 1}`);
    old.close();
    expect(() => openDatabase(dir)).toThrow(
      new RegExp(
        `schema version ${SCHEMA.first - 1}, from before this mock's first \\(${SCHEMA.first}\\): take a snapshot ` +
          'with the mock that wrote it \\(GET /__mock/snapshot\\)',
      ),
    );
  });

  it('refuses a data folder written by a newer mock, saying what to do', () => {
    const dir = folder();
    openDatabase(dir, { first: 1, steps: ['CREATE TABLE a (x)', 'CREATE TABLE b (x)'] }).close();
    expect(() => openDatabase(dir, { first: 1, steps: ['CREATE TABLE a (x)'] })).toThrow(
      /schema version 2, newer than this mock's 1: run the newer mock on it, or start this one with another --data-dir/,
    );
  });

  it('refuses the old JSON snapshot format with one line that says what to do', () => {
    const dir = folder();
    writeFileSync(path.join(dir, 'state.json'), '{"version":1}');
    expect(() => openDatabase(dir)).toThrow(DataFolderError);
    expect(() => openDatabase(dir)).toThrow(/old JSON snapshot format .* start with a new --data-dir/);
  });

  it('refuses a data folder another mock has open, saying what to do', () => {
    const dir = folder();
    const first = openDatabase(dir);
    try {
      expect(() => openDatabase(dir)).toThrow(
        /another mock is using the data folder .*: stop it, or start this one/,
      );
    } finally {
      first.close();
    }
    openDatabase(dir).close(); // free again once the first has closed
  });

  it('refuses a file that is not a database', () => {
    const dir = folder();
    writeFileSync(path.join(dir, 'state.sqlite'), 'not a database at all, just text '.repeat(100));
    expect(() => openDatabase(dir)).toThrow(DataFolderError);
  });
});
