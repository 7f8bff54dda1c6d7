import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { apiKeyRecord } from '../../../domain/api-keys.js';
import {
  expectCopiedIntoTables,
  SETTINGS_BEFORE_STEP_5,
} from '../../../../test-support/settings-before-typed-tables.js';
import { clientText } from '../../tables/client-text.js';
import { MIGRATIONS } from '../../tables/migrations.js';
import { SqliteStateStore } from '../sqlite-state-store.js';
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

function apiKeyRecordRow(key: string) {
  const { id, hash, prefix } = apiKeyRecord(key);
  return { id, key_hash: hash, prefix };
}

describe('openDatabase', () => {
  it('creates the schema at its version, in WAL mode with synchronous FULL', () => {
    const db = openDatabase(folder());
    expect(pragma(db, 'user_version')).toBe(MIGRATIONS.length);
    expect(pragma(db, 'journal_mode')).toBe('wal');
    expect(pragma(db, 'synchronous')).toBe(2); // FULL
    db.close();
  });

  it('migrates an older data folder step by step and keeps its rows', () => {
    const dir = folder();
    const v1 = ['CREATE TABLE things (id TEXT PRIMARY KEY)'];
    const old = openDatabase(dir, v1);
    old.prepare("INSERT INTO things VALUES ('kept')").run();
    old.close();
    const db = openDatabase(dir, [...v1, "ALTER TABLE things ADD COLUMN note TEXT NOT NULL DEFAULT 'new'"]);
    expect(pragma(db, 'user_version')).toBe(2);
    expect(db.prepare('SELECT id, note FROM things').all()).toEqual([{ id: 'kept', note: 'new' }]);
    db.close();
  });

  it('hashes the clear API keys of a version 1 data folder, and leaves none in its file', () => {
    const dir = folder();
    const key = 'sk_test_version_one_clear_key_0123456789';
    const old = openDatabase(dir, MIGRATIONS.slice(0, 1));
    old.exec(`INSERT INTO organizations VALUES ('org', 'Old', 'trial', 1, 1, 1)`);
    old.prepare('INSERT INTO api_keys (key, organization_id, seq) VALUES (?, ?, 1)').run(key, 'org');
    old.close();
    expect(readFileSync(path.join(dir, 'state.sqlite')).includes(Buffer.from(key))).toBe(true);

    const db = openDatabase(dir);
    expect(db.prepare('SELECT id, key_hash, prefix, organization_id FROM api_key_hashes').all()).toEqual([
      { ...apiKeyRecordRow(key), organization_id: 'org' },
    ]);
    db.close();
    for (const name of readdirSync(dir))
      expect(readFileSync(path.join(dir, name)).includes(Buffer.from(key)), name).toBe(false);
  });

  it("stores a version 3 folder's settings as client text, and keeps one live share per segmentation", () => {
    const dir = folder();
    const old = openDatabase(dir, MIGRATIONS.slice(0, 3));
    old.exec(`INSERT INTO settings VALUES ('clock_offset_ms', '86400000')`);
    old.exec(`INSERT INTO organizations VALUES ('org', 'Old', 'trial', 1, 1, 1)`);
    old.close();

    const db = openDatabase(dir);
    expect(db.prepare('SELECT organization_id, offset_ms FROM clock_offsets').all()).toEqual([
      { organization_id: '', offset_ms: 86400000 },
    ]);
    const share = db.prepare(`INSERT INTO shares VALUES (?, 'org', 'seg', ?, 0, NULL, 'now', ?)`);
    share.run('sh-1', 't-1', 'revoked');
    share.run('sh-2', 't-2', null);
    expect(() => share.run('sh-3', 't-3', null)).toThrow(/UNIQUE/);
    db.close();
  });

  it("copies a version 4 folder's settings into their tables, and drops settings", async () => {
    const dir = folder();
    const old = openDatabase(dir, MIGRATIONS.slice(0, 4));
    const insert = old.prepare('INSERT INTO settings (key, value) VALUES (?, ?)');
    for (const [key, value] of SETTINGS_BEFORE_STEP_5) insert.run(key, clientText(value));
    old.close();

    const store = new SqliteStateStore(openDatabase(dir));
    try {
      await expectCopiedIntoTables(store);
    } finally {
      await store.close();
    }
    const db = openDatabase(dir);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'settings'").all()).toEqual([]);
    db.close();
  });

  it('refuses a data folder written by a newer mock, saying what to do', () => {
    const dir = folder();
    openDatabase(dir, ['CREATE TABLE a (x)', 'CREATE TABLE b (x)']).close();
    expect(() => openDatabase(dir, ['CREATE TABLE a (x)'])).toThrow(
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
