import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { eventually, freePort, launchMock, type LaunchedMock } from '../../../test-support/launched-mock.js';
import pg from 'pg';
import { startTestPostgres } from '../../../test-support/test-postgres.js';

describe('a port that is already taken', () => {
  it('prints one line naming the port and how to pick another, and exits 1', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as { port: number };
    try {
      const mock = launchMock(process.execPath, ['bin/cellseg-mock.js', 'start', '--port', String(port)]);
      const code = await mock.exited;
      const lines = mock
        .output()
        .split('\n')
        .filter((line) => line.trim() && !line.startsWith('npm warn'));
      expect(code).toBe(1);
      expect(lines).toEqual([
        `error: port ${port} is already in use on 127.0.0.1: stop what holds it, or pick another with --port <n> (or PORT=<n>; 0 picks a free one)`,
      ]);
    } finally {
      holder.close();
    }
  });
});

describe('a shared PostgreSQL that does not answer at start-up', () => {
  it('is waited for no longer than --database-wait-ms, then named in one line (password hidden), exit 1', async () => {
    const port = await freePort(); // nothing listens there
    const url = `postgres://mock:s3cret-word@127.0.0.1:${port}/cells`;
    const mock = launchMock(process.execPath, [
      'bin/cellseg-mock.js',
      'start',
      '--port',
      '0',
      '--log-level',
      'warn',
      '--database-url',
      url,
      '--database-wait-ms',
      '1000',
    ]);
    const code = await mock.exited;
    const output = mock.output();
    expect(code).toBe(1);
    expect(output).not.toContain('s3cret-word');
    const errors = output.split('\n').filter((line) => line.startsWith('error:'));
    expect(errors).toEqual([
      `error: PostgreSQL at postgres://mock:***@127.0.0.1:${port}/cells did not answer within 1 s (connect ECONNREFUSED 127.0.0.1:${port}): start it, or correct --database-url / DATABASE_URL; --database-wait-ms sets how long an instance waits for it`,
    ]);
  });

  it('is tried again, saying so, and joined once it is up; one that answers and refuses ends the start at once', async () => {
    const postgres = await startTestPostgres();
    let mock: LaunchedMock | undefined;
    try {
      const url = await postgres.newDatabase();
      await postgres.server.restart(async () => {
        mock = launchMock(process.execPath, [
          'bin/cellseg-mock.js',
          'start',
          '--port',
          '0',
          '--log-level',
          'warn',
          '--database-url',
          url,
          // Only a bound, so a broken start fails the test instead of hanging it.
          '--database-wait-ms',
          '120000',
        ]);
        // PostgreSQL starts again only once the instance has said that it waits for it.
        const started = mock;
        const waits = () => started.output().includes('is not answering');
        await eventually(() => waits() || !started.treeAlive(), 120_000);
        expect(waits(), started.output()).toBe(true);
      });
      const base = await mock!.url;
      const waiting = mock!
        .output()
        .split('\n')
        .find((line) => line.includes('is not answering'))!;
      const password = new URL(url).password;
      expect(waiting).toContain(`PostgreSQL at ${url.replace(`:${password}@`, ':***@')} is not answering`);
      expect(mock!.output()).not.toContain(password);
      expect((await fetch(`${base}/__mock/health`)).status).toBe(200);
      // A database that answers and refuses is not waited for: waiting would not change its answer.
      const refused = launchMock(process.execPath, [
        'bin/cellseg-mock.js',
        'start',
        '--port',
        '0',
        '--database-url',
        url.replace(`:${password}@`, ':not-the-password@'),
        '--database-wait-ms',
        '120000',
      ]);
      expect(await refused.exited).toBe(1);
      expect(
        refused
          .output()
          .split('\n')
          .filter((line) => line.startsWith('error:')),
      ).toEqual([
        `error: PostgreSQL at ${url.replace(`:${password}@`, ':***@')} refused this instance: password authentication failed for user "postgres" (check the user, password and database of --database-url / DATABASE_URL)`,
      ]);
    } finally {
      mock?.kill();
      await postgres.stop();
    }
  });
});

describe('a --data-dir the mock cannot use', () => {
  const startWith = async (dataDir: string) => {
    const mock = launchMock(process.execPath, [
      'bin/cellseg-mock.js',
      'start',
      '--port',
      '0',
      '--data-dir',
      dataDir,
    ]);
    const code = await mock.exited;
    const lines = mock
      .output()
      .split('\n')
      .filter((line) => line.trim() && !line.startsWith('npm warn'));
    return { code, lines };
  };

  it('that names a file, or a folder under a file, is refused in one line naming it, exit 1', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'cellseg-mock-test-'));
    try {
      const file = path.join(folder, 'a-file');
      writeFileSync(file, 'not a folder');
      expect(await startWith(file)).toEqual({
        code: 1,
        lines: [`error: cannot use ${file} as the data folder: ${file} is a file, not a folder`],
      });
      expect(await startWith(path.join(file, 'under'))).toEqual({
        code: 1,
        lines: [
          `error: cannot use ${path.join(file, 'under')} as the data folder: ${file} is a file, not a folder`,
        ],
      });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('where the file system refuses new folders (/proc) ends the start with one line instead of spinning', async () => {
    const { code, lines } = await startWith('/proc/cellseg-mock-data');
    expect(code).toBe(1);
    expect(lines).toEqual([
      'error: cannot use /proc/cellseg-mock-data as the data folder: the file system refuses to create /proc/cellseg-mock-data (ENOENT)',
    ]);
  });
});

describe('a database whose schema is newer than this build', () => {
  it('is refused in one line saying so, exit 1, not a stack trace', async () => {
    const postgres = await startTestPostgres();
    try {
      const url = await postgres.newDatabase();
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(
        'CREATE TABLE schema_version (version integer NOT NULL); INSERT INTO schema_version VALUES (9999)',
      );
      await admin.end();
      const mock = launchMock(process.execPath, [
        'bin/cellseg-mock.js',
        'start',
        '--port',
        '0',
        '--database-url',
        url,
      ]);
      expect(await mock.exited).toBe(1);
      const lines = mock
        .output()
        .split('\n')
        .filter((line) => line.trim() && !line.startsWith('npm warn'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^error: the PostgreSQL database has schema version 9999, newer than this mock's \d+/,
      );
    } finally {
      await postgres.stop();
    }
  });
});
