/**
 * The disk's commit rate, the ceiling for acknowledged writes: one small row inserted and committed
 * per transaction, on the same disk as the engine the mock writes to.
 *
 * - PostgreSQL: Debian's `pgbench` with a one-INSERT script on N connections when it is installed,
 *   else a loop of single-row INSERTs in autocommit on N `pg` connections; the result says which.
 * - SQLite: one synchronous=FULL WAL transaction per insert, in this process (one writer: that is
 *   SQLite's own ceiling whatever the clients).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { DatabaseSync } from '../../mock-server/stores/sqlite/database/node-sqlite.js';
import { inTransaction } from '../../mock-server/stores/sqlite/database/statements.js';

const run = promisify(execFile);
const ROW = 'x'.repeat(300);

export interface CommitCeiling {
  commitsPerSecond: number;
  connections: number;
  /** What measured it, for the table: "pgbench 15.x" or "node pg loop". */
  tool: string;
}

/** tps from pgbench's summary ("tps = 812.3 (without initial connection time)"). */
export function parsePgbenchTps(output: string): number {
  const match = /^tps = ([\d.]+) \((?:without|excluding) initial connection/m.exec(output);
  if (!match)
    throw new Error(`no tps in pgbench's output: ${output.trim().split('\n').slice(-5).join(' | ')}`);
  return Number(match[1]);
}

/** Debian's pgbench: on PATH, else the newest /usr/lib/postgresql/<n>/bin/pgbench; undefined when absent. */
export function findPgbench(): string | undefined {
  const root = '/usr/lib/postgresql';
  const versioned = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
        .map((v) => path.join(root, v, 'bin', 'pgbench'))
    : [];
  const onPath = (process.env.PATH ?? '').split(':').map((dir) => path.join(dir, 'pgbench'));
  return [...onPath, ...versioned].find((file) => existsSync(file));
}

export async function postgresCommitCeiling(
  databaseUrl: string,
  connections: number,
  seconds: number,
  workDir: string,
): Promise<CommitCeiling> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      'CREATE TABLE IF NOT EXISTS bench_commit_ceiling (id bigserial PRIMARY KEY, body text)',
    );
  } finally {
    await client.end();
  }
  const pgbench = findPgbench();
  if (pgbench) {
    const script = path.join(workDir, 'commit-ceiling.sql');
    await writeFile(script, `INSERT INTO bench_commit_ceiling (body) VALUES ('${ROW}');\n`);
    const args = [
      '-n',
      '-f',
      script,
      '-c',
      String(connections),
      '-j',
      '2',
      '-T',
      String(seconds),
      databaseUrl,
    ];
    const { stdout } = await run(pgbench, args, { maxBuffer: 16 * 1024 * 1024 });
    const version = (await run(pgbench, ['--version'])).stdout.trim().replace(/^pgbench \(PostgreSQL\) /, '');
    return { commitsPerSecond: parsePgbenchTps(stdout), connections, tool: `pgbench ${version}` };
  }
  return {
    commitsPerSecond: await nodeInsertLoop(databaseUrl, connections, seconds),
    connections,
    tool: 'node pg loop',
  };
}

/** Single-row INSERTs, each its own (autocommit) transaction, on `connections` connections at once. */
async function nodeInsertLoop(databaseUrl: string, connections: number, seconds: number): Promise<number> {
  const clients = await Promise.all(
    Array.from({ length: connections }, async () => {
      const c = new pg.Client({ connectionString: databaseUrl });
      await c.connect();
      return c;
    }),
  );
  let commits = 0;
  const until = performance.now() + seconds * 1000;
  try {
    await Promise.all(
      clients.map(async (c) => {
        while (performance.now() < until) {
          await c.query('INSERT INTO bench_commit_ceiling (body) VALUES ($1)', [ROW]);
          commits++;
        }
      }),
    );
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
  return commits / seconds;
}

/** One insert per synchronous=FULL WAL transaction, as fast as one thread can: SQLite's commit rate. */
export function sqliteCommitCeiling(dir: string, seconds: number): CommitCeiling {
  const db = new DatabaseSync(path.join(dir, 'floor.sqlite'));
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = FULL');
  db.exec('CREATE TABLE t (id TEXT PRIMARY KEY, body TEXT)');
  const insert = db.prepare('INSERT INTO t VALUES (?, ?)');
  const until = performance.now() + seconds * 1000;
  let commits = 0;
  while (performance.now() < until) {
    inTransaction(db, () => insert.run(randomUUID(), ROW));
    commits++;
  }
  db.close();
  return { commitsPerSecond: commits / seconds, connections: 1, tool: 'node:sqlite, synchronous=FULL' };
}
