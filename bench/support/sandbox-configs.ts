/**
 * The configurations the sandbox section compares, each behind its own nginx as the sandbox
 * launcher puts it (sandbox/launcher.ts): one instance on the embedded SQLite file, and 1, 2 and 3
 * instances on one PostgreSQL (a throwaway server, one database per configuration). Every
 * configuration runs at once so that the section can take turns between them; idle instances cost
 * little. Every process and folder started here is handed to the caller's Cleanup as it starts.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import {
  INSTANCE_NODE_FLAGS,
  SANDBOX_ABUSE_LIMITS,
  startSandbox,
  type Sandbox,
} from '../../sandbox/launcher.js';
import { spawnLogged, type LoggedProcess } from '../../sandbox/logged-process.js';
import { renderNginxConfig } from '../../sandbox/nginx-config.js';
import { freePort, waitUntilAnswering } from '../../sandbox/readiness.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../../sandbox/throwaway-postgres.js';
import type { Cleanup } from './cleanup.js';
import type { TreeRoot } from './process-tree.js';
import { repoRoot } from './processes.js';

export interface Configuration {
  /** "SQLite x1", "PostgreSQL x2", ... */
  name: string;
  engine: 'sqlite' | 'postgresql';
  instances: number;
  /** nginx, in front of the instances. */
  url: string;
  adminToken: string;
  /** The database its instances share (PostgreSQL configurations only). */
  databaseUrl?: string;
  /**
   * Its processes but PostgreSQL's, each the root of a tree: the instances (their segmentation and
   * decoder children below them) and nginx's master (its workers below it).
   */
  processes(): TreeRoot[];
}

export interface Configurations {
  all: Configuration[];
  /** The throwaway PostgreSQL every PostgreSQL configuration shares (its own database each). */
  postgresUrl: string;
}

const HOST = '127.0.0.1';
/** The mock's defaults for what nginx leaves to it, as the launcher sets them. */
const MOCK_LIMITS = { maxUploadBytes: 4 * 1024 ** 3, requestTimeoutMs: 3_600_000, idleTimeoutMs: 120_000 };

export async function startConfigurations(options: {
  postgresInstances: number[];
  /** For every instance of every configuration (prediction delays off, ...). */
  instanceArgs: string[];
  log(message: string): void;
  /** Takes every piece's stop as soon as the piece runs; the caller runs them (reverse order). */
  cleanup: Cleanup;
}): Promise<Configurations> {
  const { cleanup } = options;
  const notAborted = () => cleanup.signal.throwIfAborted();
  options.log('sandbox: starting a throwaway PostgreSQL');
  // Its own temporary folder, not one inside ours: the cluster's owner (`postgres` when we are
  // root) must reach it, as nginx's workers must reach theirs.
  const postgres: ThrowawayPostgres = await cleanup.starting(startThrowawayPostgres(), (server) =>
    server.stop(),
  );
  notAborted();
  const all: Configuration[] = [];
  options.log('sandbox: starting 1 instance on SQLite behind nginx');
  all.push(await startSqliteBehindNginx(options.instanceArgs, cleanup));
  notAborted();
  for (const n of options.postgresInstances) {
    options.log(`sandbox: starting ${n} instance(s) on PostgreSQL behind nginx`);
    const databaseUrl = await createDatabase(postgres.url, `bench_x${n}`);
    const sandbox: Sandbox = await cleanup.starting(
      startSandbox({ instances: n, databaseUrl, instanceArgs: options.instanceArgs, signal: cleanup.signal }),
      (started) => started.stop(),
    );
    all.push({
      name: `PostgreSQL x${n}`,
      engine: 'postgresql',
      instances: n,
      url: sandbox.url,
      databaseUrl,
      adminToken: sandbox.adminToken,
      processes: () => [
        ...sandbox.instances.map((i) => ({ label: 'instances', pid: i.pid })),
        { label: 'nginx', pid: sandbox.balancerPid },
      ],
    });
  }
  return { all, postgresUrl: postgres.url };
}

/** A database of its own on the throwaway server, so that no configuration sees another's rows. */
async function createDatabase(serverUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * One instance without --database-url (its SQLite file in its data folder), with the launcher's
 * other settings, and nginx configured as the launcher configures it: the SQLite figures pay the
 * same proxy hop as the PostgreSQL ones.
 */
async function startSqliteBehindNginx(instanceArgs: string[], cleanup: Cleanup): Promise<Configuration> {
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'cellseg-bench-sqlite-'));
  cleanup.add(() => rm(workDir, { recursive: true, force: true }));
  // nginx's workers (an unprivileged user when root starts it) must reach its temp folders in here.
  await chmod(workDir, 0o755);
  const port = await freePort();
  const instancePort = await freePort();
  const url = `http://${HOST}:${port}`;
  // Hex, as the launcher's: a base64url token starts with '-' one time in 64, which the mock's
  // option parser takes for a flag ("--admin-token needs a value"), and the instance never starts.
  const adminToken = randomBytes(24).toString('hex');
  await mkdir(path.join(workDir, 'data'));
  const args = [
    ...INSTANCE_NODE_FLAGS,
    path.join(repoRoot, 'bin', 'cellseg-mock.js'),
    ...['--port', String(instancePort), '--host', HOST, '--data-dir', path.join(workDir, 'data')],
    ...['--admin-token', adminToken, '--instance-id', 'sqlite-1', '--public-base-url', url],
    // As sandbox/launcher.ts starts each instance: the same log and abuse limits as the PostgreSQL rows.
    ...['--sandbox', 'on', '--seed-keys', 'on', '--log-level', 'info', '--log-requests', 'all'],
    ...SANDBOX_ABUSE_LIMITS,
    ...instanceArgs,
  ];
  const instance = await cleanup.starting(
    spawnLogged('sqlite-1', process.execPath, args, path.join(workDir, 'sqlite-1.log'), { cwd: repoRoot }),
    stopPiece,
  );
  await waitUntilAnswering(`http://${HOST}:${instancePort}/__mock/health`, instance);

  const nginx = await startNginx(workDir, port, [instancePort], cleanup);
  return {
    name: 'SQLite x1',
    engine: 'sqlite',
    instances: 1,
    url,
    adminToken,
    processes: () => [
      { label: 'instances', pid: instance.pid },
      { label: 'nginx', pid: nginx.pid },
    ],
  };
}

/**
 * The floor of a read that asks PostgreSQL once (postgres-floor-server.mjs, on the configurations'
 * throwaway server) behind an nginx configured as the launcher configures it. Reads only: its
 * `processes` are the server and nginx; the caller adds PostgreSQL's as it does for the sandbox.
 */
export async function startPostgresFloor(
  postgresUrl: string,
  cleanup: Cleanup,
  servers = 1,
): Promise<FloorConfiguration> {
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'cellseg-bench-floor-'));
  cleanup.add(() => rm(workDir, { recursive: true, force: true }));
  await chmod(workDir, 0o755);
  const port = await freePort();
  const databaseUrl = await createDatabase(postgresUrl, `bench_floor_${servers}`);
  const script = path.join(repoRoot, 'bench', 'support', 'postgres-floor-server.mjs');
  const started: { pid: number; port: number }[] = [];
  for (let i = 1; i <= servers; i++) {
    const serverPort = await freePort();
    const server = await cleanup.starting(
      spawnLogged(
        `postgres-floor-${i}`,
        process.execPath,
        [script, '--port', String(serverPort), '--database-url', databaseUrl],
        path.join(workDir, `postgres-floor-${i}.log`),
        { cwd: repoRoot },
      ),
      stopPiece,
    );
    await waitUntilAnswering(`http://${HOST}:${serverPort}/`, server);
    started.push({ pid: server.pid, port: serverPort });
  }
  const nginx = await startNginx(
    workDir,
    port,
    started.map((s) => s.port),
    cleanup,
  );
  return {
    name:
      servers === 1
        ? 'node:http + one PostgreSQL read'
        : `${servers} node:http processes, each with one PostgreSQL read`,
    servers,
    url: `http://${HOST}:${port}`,
    processes: () => [
      ...started.map((s) => ({ label: 'server', pid: s.pid })),
      { label: 'nginx', pid: nginx.pid },
    ],
  };
}

export interface FloorConfiguration {
  name: string;
  /** Server processes behind nginx, each as the floor server: three share the cores as three instances do. */
  servers: number;
  url: string;
  processes(): TreeRoot[];
}

/** nginx on `port` in front of the upstreams, configured as the sandbox launcher configures it. */
async function startNginx(workDir: string, port: number, upstreamPorts: number[], cleanup: Cleanup) {
  const prefix = path.join(workDir, 'nginx');
  await mkdir(path.join(prefix, 'logs'), { recursive: true });
  await mkdir(path.join(prefix, 'temp'), { recursive: true });
  const conf = path.join(prefix, 'nginx.conf');
  await writeFile(
    conf,
    renderNginxConfig({
      listen: { host: HOST, port },
      instances: upstreamPorts.map((upstreamPort) => ({ host: HOST, port: upstreamPort })),
      ...MOCK_LIMITS,
      workerUser:
        process.getuid?.() === 0
          ? { user: 'nobody', group: existsSync('/etc/debian_version') ? 'nogroup' : 'nobody' }
          : undefined,
    }),
  );
  const errorLog = path.join(prefix, 'logs', 'error.log');
  const binary = existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx';
  const nginx = await cleanup.starting(
    spawnLogged('nginx', binary, ['-p', prefix, '-c', conf, '-e', errorLog], errorLog),
    stopPiece,
  );
  await waitUntilAnswering(`http://${HOST}:${port}/__mock/health`, nginx);
  return nginx;
}

async function stopPiece(piece: LoggedProcess): Promise<void> {
  if (piece.hasExited()) return;
  piece.kill('SIGTERM');
  const timer = setTimeout(() => piece.kill('SIGKILL'), 15_000);
  await piece.exited;
  clearTimeout(timer);
}
