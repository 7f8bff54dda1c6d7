/**
 * A PostgreSQL server of its own for this machine and CI: Debian's binaries, a fresh cluster in a
 * temporary folder, listening on 127.0.0.1 only, gone after `stop()`. The sandbox launcher and the
 * PostgreSQL engine's tests start one; a real deployment points `--database-url` at its own server
 * instead.
 *
 * PostgreSQL refuses to run as root, so when we are root the cluster belongs to the `postgres` user
 * (created by Debian's package) and its programs run through `runuser`. fsync stays on: a write
 * the mock acknowledged must survive a crash here as it would in production, or the crash and
 * restart proofs would prove nothing.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, openSync, closeSync, readdirSync } from 'node:fs';
import { chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export interface ThrowawayPostgres {
  /** postgres://… of the database created for the caller (user `postgres`, a random password). */
  readonly url: string;
  /** The server's log (inside the folder: it goes with `stop()`). */
  readonly logFile: string;
  /** Ends the server (fast shutdown: open sessions are cut) and removes its folder. */
  stop(): Promise<void>;
  /**
   * Stops the server and starts it again on the same port and data, as a restart in production
   * would: open connections are cut, committed data stays. `whileDown` runs while nothing listens
   * (a test asserts there how clients behave without a database, with no timing involved).
   */
  restart(whileDown?: () => Promise<void>): Promise<void>;
}

export interface ThrowawayPostgresOptions {
  /** The folder to hold the cluster (created if missing, removed by `stop()`); a new temporary one by default. */
  dir?: string;
  /** The TCP port on 127.0.0.1; a free one by default. */
  port?: number;
  /** The database created for the caller; `cellseg` by default. */
  database?: string;
}

const NOT_INSTALLED =
  "PostgreSQL's server programs (initdb, postgres) were not found: install Debian's `postgresql` package (apt-get install postgresql)";
const READY_WITHIN_MS = 60_000;

export async function startThrowawayPostgres(
  options: ThrowawayPostgresOptions = {},
): Promise<ThrowawayPostgres> {
  const bin = await postgresBinDir();
  const owner = await clusterOwner();
  const dir = options.dir ?? (await mkdtemp(path.join(os.tmpdir(), 'cellseg-postgres-')));
  await mkdir(dir, { recursive: true });
  const dataDir = path.join(dir, 'data');
  const logFile = path.join(dir, 'postgres.log');
  const password = randomBytes(18).toString('base64url');
  try {
    const passwordFile = path.join(dir, 'password');
    await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
    if (owner) {
      await chown(dir, owner.uid, owner.gid);
      await chown(passwordFile, owner.uid, owner.gid);
    }
    await runAs(owner, path.join(bin, 'initdb'), [
      '--pgdata',
      dataDir,
      '--username',
      'postgres',
      '--pwfile',
      passwordFile,
      '--auth',
      'scram-sha-256',
      '--encoding',
      'UTF8',
      '--no-locale',
    ]);
    await rm(passwordFile);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const port = options.port ?? (await freePort());
  const database = options.database ?? 'cellseg';
  const admin = `postgres://postgres:${password}@127.0.0.1:${port}`;
  const server = new PostgresProcess(bin, owner, dir, dataDir, port, logFile);
  try {
    await server.start();
    await createDatabase(`${admin}/postgres`, database);
  } catch (error) {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `${admin}/${database}`,
    logFile,
    async stop() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
    async restart(whileDown) {
      await server.stop();
      try {
        await whileDown?.();
      } finally {
        await server.start();
      }
    },
  };
}

/** One run of `postgres` on the cluster; started again by `restart()`. */
class PostgresProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private readonly killOnExit = (): void => this.signal('SIGQUIT');
  private postmasterPid: number | undefined;

  constructor(
    private readonly bin: string,
    private readonly owner: Owner | undefined,
    private readonly dir: string,
    private readonly dataDir: string,
    private readonly port: number,
    private readonly logFile: string,
  ) {}

  async start(): Promise<void> {
    const log = openSync(this.logFile, 'a');
    const args = [
      '-D',
      this.dataDir,
      '-p',
      String(this.port),
      '-c',
      'listen_addresses=127.0.0.1',
      // Its own socket folder: Debian's /var/run/postgresql may not exist outside the packaged service.
      '-c',
      `unix_socket_directories=${this.dir}`,
      '-c',
      'fsync=on',
      '-c',
      'synchronous_commit=on',
      '-c',
      'max_connections=200',
    ];
    const [command, fullArgs] = this.owner
      ? ['runuser', ['-u', 'postgres', '--', path.join(this.bin, 'postgres'), ...args]]
      : [path.join(this.bin, 'postgres'), args];
    // A process group of its own: the launcher's Ctrl-C reaches the launcher, which stops the
    // instances first and the database last.
    const child = spawn(command, fullArgs, { stdio: ['ignore', log, log], detached: true });
    closeSync(log);
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    let exitedEarly = false;
    void this.exited.then(() => (exitedEarly = true));
    process.on('exit', this.killOnExit);
    const deadline = Date.now() + READY_WITHIN_MS;
    while (!(await this.accepting())) {
      if (exitedEarly) {
        process.off('exit', this.killOnExit);
        this.child = undefined;
        throw new Error(`postgres exited at start: ${await tail(this.logFile)}`);
      }
      if (Date.now() > deadline) {
        await this.stop();
        throw new Error(
          `postgres did not accept connections within ${READY_WITHIN_MS} ms: ${await tail(this.logFile)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The postmaster itself (runuser is its parent): signalled directly, so a stop never depends on
    // runuser passing signals on.
    const pidLine = (await readFile(path.join(this.dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0];
    this.postmasterPid = Number(pidLine);
  }

  async stop(): Promise<void> {
    if (!this.child) return;
    // SIGINT is PostgreSQL's "fast" shutdown: sessions are cut, a checkpoint is written.
    this.signal('SIGINT');
    await this.exited;
    process.off('exit', this.killOnExit);
    this.child = undefined;
    this.postmasterPid = undefined;
  }

  private signal(signal: NodeJS.Signals): void {
    const pid = this.postmasterPid ?? this.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }

  private async accepting(): Promise<boolean> {
    try {
      await run(path.join(this.bin, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(this.port)]);
      return true;
    } catch {
      return false;
    }
  }
}

interface Owner {
  uid: number;
  gid: number;
}

/** The `postgres` user when we are root (PostgreSQL will not run as root); ourselves otherwise. */
async function clusterOwner(): Promise<Owner | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    return { uid, gid };
  } catch {
    throw new Error(`${NOT_INSTALLED}; running as root, it also needs the package's \`postgres\` user`);
  }
}

async function runAs(owner: Owner | undefined, program: string, args: string[]): Promise<void> {
  const [command, fullArgs] = owner
    ? ['runuser', ['-u', 'postgres', '--', program, ...args]]
    : [program, args];
  try {
    // The cluster's owner may not read our working folder: run from one it can.
    await run(command, fullArgs, { cwd: os.tmpdir() });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`${path.basename(program)} failed: ${stderr.trim() || String(error)}`);
  }
}

/** Debian's server binaries: `pg_config --bindir` (postgresql-common), else the newest /usr/lib/postgresql/<n>/bin. */
async function postgresBinDir(): Promise<string> {
  const candidates: string[] = [];
  try {
    candidates.push((await run('pg_config', ['--bindir'])).stdout.trim());
  } catch {
    // pg_config comes with libpq-dev or the server; the versioned folders are looked at next
  }
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((version) => path.join(root, version, 'bin')));
  }
  const found = candidates.find((dir) =>
    ['initdb', 'postgres', 'pg_isready'].every((p) => existsSync(path.join(dir, p))),
  );
  if (!found) throw new Error(NOT_INSTALLED);
  return found;
}

async function createDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
}

/** A port nobody listens on now (the server binds it a moment later; a clash fails its start loudly). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function tail(file: string): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trim().split('\n').slice(-10).join('\n');
  } catch {
    return '(no log)';
  }
}
