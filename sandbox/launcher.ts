/**
 * `startSandbox()`: a PostgreSQL (a throwaway one unless given), N mock instances on one shared
 * data folder and that database, and nginx in front of them, started in that order and stopped in
 * the reverse one. The command line (cli.ts) and the tests drive the same function.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeExit, spawnLogged, type LoggedProcess } from './logged-process.js';
import { renderNginxConfig } from './nginx-config.js';
import { freePort, waitForLogLine, waitUntilAnswering } from './readiness.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from './throwaway-postgres.js';
import { startThrowawayRgw, type ThrowawayRgw } from './throwaway-rgw.js';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
const HEALTH = '/__mock/health';
const HOST = '127.0.0.1';
/** The last line of the banner an instance prints once it has started (mock-server/main.ts). */
const BANNER_END = 'Try: curl';
/** The mock's defaults for the limits nginx must leave to it (mock-server/config-options.ts). */
const MOCK_LIMITS = { maxUploadBytes: 4 * 1024 ** 3, requestTimeoutMs: 3_600_000, idleTimeoutMs: 120_000 };
/** Longest an instance may take to finish its requests on SIGTERM before it is killed. */
const STOP_WITHIN_MS = 15_000;
/**
 * An instance that dies is started again after this wait, doubled on each death in a row up to
 * the longest, so that one that cannot start (a broken flag, a full disk) does not spin the
 * machine; a run of RESTART_SETTLED_MS without dying starts the count over.
 */
const RESTART_BACKOFF_MS = { first: 250, longest: 30_000 };
const RESTART_SETTLED_MS = 60_000;

/**
 * Node's own flags for every instance. On PostgreSQL each request runs in an AsyncLocalStorage
 * context (its snapshot: mock-server/stores/postgres/connection.ts). Node 22 keeps such a context
 * with a hook on every promise; Node 24 keeps it in a frame, and Node 22 does too with this flag.
 * One instance on PostgreSQL, Node 22, reads straight to it: 41-43 µs of CPU per read with the
 * flag, 50-57 without, 41-44 on Node 24 (docs/sandbox.md, "Sandbox cost").
 */
export const INSTANCE_NODE_FLAGS =
  Number(process.versions.node.split('.')[0]) < 24 &&
  process.allowedNodeEnvironmentFlags.has('--experimental-async-context-frame')
    ? ['--experimental-async-context-frame']
    : [];

/** The abuse limits every sandbox instance starts with (the last of a repeated flag wins). */
export const SANDBOX_ABUSE_LIMITS = [
  '--rate-limit-per-second',
  '1000',
  '--max-stored-bytes-per-org',
  String(50 * 1024 ** 3),
  '--max-open-uploads-per-org',
  '100',
  '--max-concurrent-predictions-per-org',
  '32',
];

export interface SandboxOptions {
  instances: number;
  /** Where the one address listens; a free port when absent or 0. */
  port?: number;
  /** Load the seed's well-known keys (as `npm start` does); true by default. */
  seed?: boolean;
  /** An existing PostgreSQL to join; a throwaway one is started when absent. */
  databaseUrl?: string;
  /** The folder all instances share, kept after stop; a temporary one, removed, when absent. */
  dataDir?: string;
  /**
   * Where the instances keep uploads and files: the shared data folder (the default), or S3: the
   * bucket given, or a throwaway Ceph RGW started for the sandbox when none is.
   */
  objectStore?: SandboxObjectStore;
  /** More options for every instance (`--prediction-run-delay-ms 0`, ...). */
  instanceArgs?: string[];
  /** Progress while starting, and the report of a piece that dies. */
  report?: (line: string) => void;
  /** Aborting it while starting (a Ctrl-C) stops what has started and rejects. */
  signal?: AbortSignal;
}

export type SandboxObjectStore =
  | { kind: 'embedded' }
  | {
      kind: 's3';
      /** An existing bucket (credentials from the SDK's chain: AWS_ACCESS_KEY_ID, ...); absent: a throwaway RGW. */
      bucket?: string;
      endpoint?: string;
      region?: string;
      forcePathStyle?: boolean;
    };

export interface SandboxInstance {
  /** sandbox-1, sandbox-2, ...: its --instance-id. */
  readonly id: string;
  /** The instance's own address, behind nginx. */
  readonly url: string;
  readonly pid: number;
  readonly logFile: string;
  /**
   * Signals the instance's process (SIGTERM by default) and resolves once it has exited. An
   * instance stopped this way stays down until `restart()`; one that dies otherwise (a crash, a
   * kill from outside) is started again by the launcher.
   */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port (after a kill) and resolves once it answers. */
  restart(): Promise<void>;
}

export interface Sandbox {
  /** The one address: nginx. */
  url: string;
  /** nginx's master process (its workers are its children): what a CPU or memory probe starts from. */
  balancerPid: number;
  adminToken: string;
  instances: SandboxInstance[];
  /** The throwaway server, or undefined when the sandbox joined --database-url. */
  postgres: ThrowawayPostgres | undefined;
  /** The throwaway S3 (Ceph RGW), when the sandbox is on S3 without a bucket of its own. */
  rgw: ThrowawayRgw | undefined;
  /** Where files live: the shared folder, or `s3://bucket at endpoint`. */
  objectStoreDescription: string;
  databaseUrl: string;
  dataDir: string;
  /** Where every piece logs. */
  logs: Array<{ piece: string; file: string }>;
  /** The first instance's start-up banner (models, organizations, keys), as `npm start` prints it. */
  seedBanner: string;
  stop(): Promise<void>;
}

export function checkInstanceCount(instances: number): void {
  if (!Number.isInteger(instances) || instances < 1 || instances > 32)
    throw new Error(`--instances must be a whole number from 1 to 32, got '${instances}'`);
}

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  checkInstanceCount(options.instances);
  const report = options.report ?? (() => undefined);
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'cellseg-sandbox-'));
  // nginx's workers (an unprivileged user when root starts it) must reach its temp folders in here.
  await chmod(workDir, 0o755);
  const cleanups: Array<() => Promise<void>> = [() => rm(workDir, { recursive: true, force: true })];
  /** The instances' processes, and nginx once it runs: nginx stops first, then the instances. */
  const pieces = new Set<LoggedProcess>();
  let balancer: LoggedProcess | undefined;
  let stopping = false;
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      stopping = true;
      // nginx first (no new requests), then the instances (they finish theirs), the database last.
      if (balancer) await stopPiece(balancer);
      await Promise.all([...pieces].map(stopPiece));
      for (const cleanup of [...cleanups].reverse()) await cleanup().catch(() => undefined);
    })());
  const notAborted = () => options.signal?.throwIfAborted();
  const watch = (piece: LoggedProcess) => {
    void piece.exited.then((exit) => {
      if (!stopping) report(`! ${piece.name} ${describeExit(exit)}; its log: ${piece.logFile}`);
    });
  };

  try {
    const port = options.port || (await freePort());
    const url = `http://${HOST}:${port}`;
    const dataDir = options.dataDir ? path.resolve(options.dataDir) : path.join(workDir, 'data');
    await mkdir(dataDir, { recursive: true });
    const logDir = path.join(workDir, 'logs');
    await mkdir(logDir);

    let postgres: ThrowawayPostgres | undefined;
    let databaseUrl = options.databaseUrl;
    if (!databaseUrl) {
      report('PostgreSQL: starting a throwaway server...');
      postgres = await startThrowawayPostgres({ dir: path.join(workDir, 'postgres') });
      cleanups.push(() => postgres!.stop());
      databaseUrl = postgres.url;
      report(`PostgreSQL: ready (log ${postgres.logFile})`);
      notAborted();
    }

    // Hex, not base64url: a token starting with '-' would read as an option on the instances' command line.
    const store = await objectStoreArgs(options.objectStore, workDir, report, cleanups);
    notAborted();

    const adminToken = randomBytes(24).toString('hex');
    const argsOf = (id: string, instancePort: number) => [
      ...INSTANCE_NODE_FLAGS,
      path.join(REPO_ROOT, 'bin', 'cellseg-mock.js'),
      '--port',
      String(instancePort),
      '--host',
      HOST,
      '--data-dir',
      dataDir,
      '--database-url',
      databaseUrl,
      '--admin-token',
      adminToken,
      '--instance-id',
      id,
      // Presigned part URLs and share links must point at nginx, not at the instance that made them.
      '--public-base-url',
      url,
      '--sandbox',
      'on',
      '--seed-keys',
      options.seed === false ? 'off' : 'on',
      // One line per request with its id, whatever LOG_LEVEL the launcher's environment has.
      '--log-level',
      'info',
      '--log-requests',
      'all',
      // A sandbox is shared: one organization may not exhaust it for the others (docs/limits.md).
      // Generous enough for a partner's test suite and a load bench; instanceArgs may change them.
      ...SANDBOX_ABUSE_LIMITS,
      ...store.args,
      // Each instance admits its share of a key's rate, counted in its memory (docs/limits.md).
      '--rate-limit-instances',
      String(options.instances),
      ...(options.instanceArgs ?? []),
    ];
    const instances: SandboxInstance[] = [];
    const startInstance = async (index: number): Promise<SandboxInstance> => {
      const id = `sandbox-${index + 1}`;
      const instancePort = await freePort();
      const instanceUrl = `http://${HOST}:${instancePort}`;
      const logFile = path.join(logDir, `${id}.log`);
      /** Set by `kill()`: the instance stays down until `restart()`. */
      let heldDown = false;
      /** Deaths in a row, for the backoff; and the automatic restart waiting or running. */
      let deaths = 0;
      let settledTimer: NodeJS.Timeout | undefined;
      let pendingRestart: { done: Promise<void>; cancel(): void } | undefined;
      const launch = async (): Promise<LoggedProcess> => {
        const logged = (await stat(logFile).catch(() => undefined))?.size ?? 0;
        const piece = await spawnLogged(id, process.execPath, argsOf(id, instancePort), logFile, {
          cwd: REPO_ROOT,
          env: { ...process.env, ...store.env },
        });
        current = piece;
        pieces.add(piece);
        // Started while the sandbox began to stop: stop() may have looked at `pieces` already.
        if (stopping) void stopPiece(piece);
        supervise(piece);
        try {
          await waitUntilAnswering(instanceUrl + HEALTH, piece);
          await waitForLogLine(piece, BANNER_END, logged);
        } catch (err) {
          // Not ready in time while still running: killed, so its exit starts the next try.
          piece.kill('SIGKILL');
          throw err;
        }
        return piece;
      };
      /** An instance that dies on its own is started again, after a backoff, and said so. */
      const supervise = (piece: LoggedProcess) => {
        void piece.exited.then((exit) => {
          pieces.delete(piece);
          clearTimeout(settledTimer);
          if (stopping || piece !== current) return;
          if (heldDown || !ready) {
            report(`! ${id} ${describeExit(exit)}; its log: ${logFile}`);
            return;
          }
          const waitMs = Math.min(RESTART_BACKOFF_MS.first * 2 ** deaths, RESTART_BACKOFF_MS.longest);
          deaths++;
          report(
            `! ${id} ${describeExit(exit)}; starting it again in ${waitMs / 1000} s (restart ${deaths} in a row); its log: ${logFile}`,
          );
          let settle = () => {};
          const done = new Promise<void>((resolve) => (settle = resolve));
          let fired = false;
          const timer = setTimeout(() => {
            fired = true;
            if (stopping) return settle();
            launch().then(
              (started) => {
                report(`${id}: started again (pid ${started.pid})`);
                settledTimer = setTimeout(() => (deaths = 0), RESTART_SETTLED_MS);
                settledTimer.unref();
                settle();
              },
              // Its exit was reported and the next try scheduled by supervise().
              () => settle(),
            );
          }, waitMs);
          timer.unref();
          const pending = {
            done,
            // Before the wait ran out: no start at all. After: the start under way finishes.
            cancel() {
              if (fired) return;
              clearTimeout(timer);
              settle();
            },
          };
          pendingRestart = pending;
          void done.then(() => {
            if (pendingRestart === pending) pendingRestart = undefined;
          });
        });
      };
      let current: LoggedProcess | undefined;
      /** Automatic restarts begin once the instance has been ready once: a failed start fails startSandbox. */
      let ready = false;
      current = await launch();
      ready = true;
      notAborted();
      report(`${id}: ready at ${instanceUrl} (pid ${current.pid}, log ${logFile})`);
      const live = () => current!;
      return {
        id,
        url: instanceUrl,
        logFile,
        get pid() {
          return live().pid;
        },
        async kill(signal) {
          heldDown = true;
          pendingRestart?.cancel();
          const piece = live();
          piece.kill(signal);
          await piece.exited;
        },
        async restart() {
          heldDown = true;
          pendingRestart?.cancel();
          await pendingRestart?.done;
          if (!live().hasExited()) await stopPiece(live());
          heldDown = false;
          deaths = 0;
          await launch();
          report(`${id}: restarted`);
        },
      };
    };
    // The first instance creates the schema and loads the seed alone; the others then join it.
    report(`Instances: starting ${options.instances} on one shared folder and database...`);
    instances.push(await startInstance(0));
    instances.push(...(await Promise.all(range(1, options.instances).map(startInstance))));

    const nginx = await startNginx(workDir, port, instances, watch);
    balancer = nginx.piece;
    await waitUntilAnswering(url + HEALTH, nginx.piece);
    report(`nginx: ready at ${url} (log ${nginx.piece.logFile})`);

    return {
      url,
      balancerPid: nginx.piece.pid,
      adminToken,
      instances,
      postgres,
      rgw: store.rgw,
      objectStoreDescription: store.description ?? dataDir,
      databaseUrl,
      dataDir,
      logs: [
        ...(postgres ? [{ piece: 'postgresql', file: postgres.logFile }] : []),
        ...(store.rgw ? [{ piece: 'radosgw', file: store.rgw.logFile }] : []),
        ...instances.map((i) => ({ piece: i.id, file: i.logFile })),
        { piece: 'nginx', file: nginx.piece.logFile },
        { piece: 'nginx requests', file: nginx.accessLog },
      ],
      seedBanner: await seedBanner(instances[0].logFile),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * The instances' options and environment for the object store; a throwaway RGW is started (and
 * its stop added to `cleanups`) when S3 is asked for without a bucket.
 */
async function objectStoreArgs(
  store: SandboxObjectStore | undefined,
  workDir: string,
  report: (line: string) => void,
  cleanups: Array<() => Promise<void>>,
): Promise<{ args: string[]; env: NodeJS.ProcessEnv; rgw?: ThrowawayRgw; description?: string }> {
  if (store === undefined || store.kind === 'embedded') return { args: [], env: {} };
  if (store.bucket !== undefined) {
    return {
      args: [
        '--object-store',
        's3',
        '--s3-bucket',
        store.bucket,
        ...(store.endpoint ? ['--s3-endpoint', store.endpoint] : []),
        ...(store.region ? ['--s3-region', store.region] : []),
        ...(store.forcePathStyle ? ['--s3-force-path-style', 'true'] : []),
      ],
      env: {},
      description: `S3 bucket ${store.bucket}${store.endpoint ? ` at ${store.endpoint}` : ''}`,
    };
  }
  report('S3: starting a throwaway Ceph RADOS Gateway...');
  const rgw = await startThrowawayRgw({ dir: path.join(workDir, 'rgw') });
  cleanups.push(() => rgw.stop());
  report(`S3: ready at ${rgw.endpoint}, bucket ${rgw.bucket} (log ${rgw.logFile})`);
  return {
    args: [
      '--object-store',
      's3',
      '--s3-bucket',
      rgw.bucket,
      '--s3-endpoint',
      rgw.endpoint,
      '--s3-region',
      rgw.region,
      '--s3-force-path-style',
      'true',
    ],
    // The instances' SDK reads the throwaway user's keys from its default chain.
    env: { AWS_ACCESS_KEY_ID: rgw.accessKeyId, AWS_SECRET_ACCESS_KEY: rgw.secretAccessKey },
    rgw,
    description: `throwaway Ceph RGW at ${rgw.endpoint}, bucket ${rgw.bucket}`,
  };
}

async function startNginx(
  workDir: string,
  port: number,
  instances: SandboxInstance[],
  watch: (piece: LoggedProcess) => void,
): Promise<{ piece: LoggedProcess; accessLog: string }> {
  const prefix = path.join(workDir, 'nginx');
  await mkdir(path.join(prefix, 'logs'), { recursive: true });
  await mkdir(path.join(prefix, 'temp'), { recursive: true });
  await chmod(prefix, 0o755);
  const conf = path.join(prefix, 'nginx.conf');
  await writeFile(
    conf,
    renderNginxConfig({
      listen: { host: HOST, port },
      instances: instances.map((i) => ({ host: HOST, port: Number(new URL(i.url).port) })),
      ...MOCK_LIMITS,
      workerUser: process.getuid?.() === 0 ? unprivilegedAccount() : undefined,
    }),
  );
  const binary = existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx';
  const errorLog = path.join(prefix, 'logs', 'error.log');
  const piece = await spawnLogged('nginx', binary, ['-p', prefix, '-c', conf, '-e', errorLog], errorLog);
  watch(piece);
  return { piece, accessLog: path.join(prefix, 'logs', 'access.log') };
}

/** Debian's nobody:nogroup (nginx's own default group, nobody, does not exist there). */
function unprivilegedAccount(): { user: string; group: string } {
  return { user: 'nobody', group: existsSync('/etc/debian_version') ? 'nogroup' : 'nobody' };
}

async function stopPiece(piece: LoggedProcess): Promise<void> {
  if (piece.hasExited()) return;
  piece.kill('SIGTERM');
  const timer = setTimeout(() => piece.kill('SIGKILL'), STOP_WITHIN_MS);
  await piece.exited;
  clearTimeout(timer);
}

/** The part of the mock's banner after its addresses: base models, organizations, their keys. */
async function seedBanner(logFile: string): Promise<string> {
  const text = await readFile(logFile, 'utf8');
  const start = text.indexOf('Base models');
  const end = text.indexOf('\n', text.indexOf(BANNER_END, start));
  return start < 0 || end < 0 ? '' : text.slice(start, end);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}
