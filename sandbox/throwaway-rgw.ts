/**
 * A real S3 of its own for this machine and CI: Ceph's RADOS Gateway from Debian in front of a
 * single-node Ceph cluster (one monitor, one OSD on `memstore`, no manager), everything in a
 * temporary folder on 127.0.0.1, gone after `stop()`. The S3 adapter's tests and the sandbox's S3
 * mode (`npm run sandbox -- --object-store s3` without a bucket) start one; a real deployment
 * points `--s3-endpoint`/`--s3-bucket` at its own S3 instead.
 *
 * memstore keeps the objects in RAM: nothing survives a stop, which is the point of a throwaway.
 * Every setting below was needed on Ceph 16 (Debian 12); without the paxos intervals each pool
 * radosgw creates costs about 2 s, without the `ms ... mode` lines radosgw waits 300 s for the
 * monitor's configuration, and in the ephemeral port range the monitor's bind collided with
 * TIME-WAIT sockets of other traffic.
 */
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

const run = promisify(execFile);

const PROGRAMS = ['monmaptool', 'ceph-mon', 'ceph-osd', 'ceph', 'radosgw', 'radosgw-admin'] as const;
const NOT_INSTALLED =
  "Ceph's RADOS Gateway was not found (radosgw, ceph-mon, ceph-osd, ceph): install Debian's packages: apt-get install --no-install-recommends radosgw ceph-mon ceph-osd ceph-common (.ci/run does)";
const READY_WITHIN_MS = 60_000;
/** Ports are picked below the kernel's ephemeral range (32768 and up on Linux), see above. */
const PORT_RANGE = { from: 20_000, to: 32_000 };

export interface ThrowawayRgw {
  /** `http://127.0.0.1:<port>`: path-style S3 (`--s3-force-path-style true`). */
  readonly endpoint: string;
  /** Any region signs; RGW's default zone group answers them all. */
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** A bucket created for the caller. */
  readonly bucket: string;
  /** radosgw's log (inside the folder: it goes with `stop()`). */
  readonly logFile: string;
  /** SIGKILLs every daemon (memstore keeps nothing to flush), waits until each is gone, removes the folder. */
  stop(): Promise<void>;
}

export interface ThrowawayRgwOptions {
  /** The folder to hold the cluster (created if missing, removed by `stop()`); a new temporary one by default. */
  dir?: string;
  /** The bucket to create; `cellseg` by default. */
  bucket?: string;
  /**
   * RGW's smallest part but the last (`rgw multipart min part size`); AWS's 5 MiB by default.
   * Tests lower it to keep their files small; the mock's `--min-part-size` must not be below it.
   */
  minPartSize?: number;
}

/** Why a throwaway RGW cannot start here (the Debian packages are absent), or undefined when it can. */
export function rgwUnavailableReason(): string | undefined {
  return PROGRAMS.every((program) => programPath(program) !== undefined) ? undefined : NOT_INSTALLED;
}

export async function startThrowawayRgw(options: ThrowawayRgwOptions = {}): Promise<ThrowawayRgw> {
  const missing = rgwUnavailableReason();
  if (missing) throw new Error(missing);
  const dir = options.dir ?? (await mkdtemp(path.join(os.tmpdir(), 'cellseg-rgw-')));
  const cluster = new CephDaemons(dir);
  try {
    for (const sub of ['run', 'log', 'mon', 'osd']) await mkdir(path.join(dir, sub), { recursive: true });
    const monPort = await lowFreePort();
    let rgwPort = await lowFreePort();
    while (rgwPort === monPort) rgwPort = await lowFreePort();
    const fsid = randomUUID();
    const conf = path.join(dir, 'ceph.conf');
    await writeFile(path.join(dir, 'keyring'), '');
    await writeFile(conf, cephConf({ dir, fsid, monPort, rgwPort, minPartSize: options.minPartSize }));
    const ceph = (program: (typeof PROGRAMS)[number], args: string[]) =>
      runProgram(program, ['-c', conf, ...args], dir);

    const monmap = path.join(dir, 'monmap');
    await runProgram(
      'monmaptool',
      ['--create', '--fsid', fsid, '--addv', 'a', `[v2:127.0.0.1:${monPort}]`, monmap],
      dir,
    );
    await ceph('ceph-mon', ['-i', 'a', '--mkfs', '--monmap', monmap]);
    await ceph('ceph-mon', ['-i', 'a']);
    const osdUuid = randomUUID();
    const osdId = (await ceph('ceph', ['osd', 'new', osdUuid])).trim();
    await mkdir(path.join(dir, 'osd', `ceph-${osdId}`), { recursive: true });
    await ceph('ceph-osd', ['-i', osdId, '--mkfs', '--osd-uuid', osdUuid]);
    await ceph('ceph-osd', ['-i', osdId]);
    await ceph('radosgw', ['-n', 'client.rgw']);
    const endpoint = `http://127.0.0.1:${rgwPort}`;
    await untilAnswering(endpoint, path.join(dir, 'log', 'client.rgw.log'));

    const accessKeyId = `CELLSEG${randomBytes(6).toString('hex').toUpperCase()}`;
    const secretAccessKey = randomBytes(24).toString('base64url');
    await ceph('radosgw-admin', [
      'user',
      'create',
      '--uid=cellseg',
      '--display-name=cellseg mock tests',
      `--access-key=${accessKeyId}`,
      `--secret-key=${secretAccessKey}`,
    ]);
    const bucket = options.bucket ?? 'cellseg';
    await createBucket(endpoint, bucket, accessKeyId, secretAccessKey);
    return {
      endpoint,
      region: 'us-east-1',
      accessKeyId,
      secretAccessKey,
      bucket,
      logFile: path.join(dir, 'log', 'client.rgw.log'),
      stop: () => cluster.stop(),
    };
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

/** The daemons of one cluster, found by their pid files in its run folder. */
class CephDaemons {
  private readonly killOnExit = (): void => this.killSync();
  private stopped: Promise<void> | undefined;

  constructor(private readonly dir: string) {
    process.on('exit', this.killOnExit);
  }

  stop(): Promise<void> {
    return (this.stopped ??= (async () => {
      process.off('exit', this.killOnExit);
      const pids = await this.pids();
      for (const pid of pids) signal(pid, 'SIGKILL');
      const deadline = Date.now() + 10_000;
      while (pids.some(alive) && Date.now() < deadline) await sleep(50);
      await rm(this.dir, { recursive: true, force: true });
    })());
  }

  private async pids(): Promise<number[]> {
    const runDir = path.join(this.dir, 'run');
    const files = await readdir(runDir).catch(() => [] as string[]);
    const pids = await Promise.all(
      files
        .filter((file) => file.endsWith('.pid'))
        .map(async (file) => Number((await readFile(path.join(runDir, file), 'utf8')).trim())),
    );
    return pids.filter((pid) => Number.isInteger(pid) && pid > 0);
  }

  /** At the process's exit nothing asynchronous runs: the pid files are read synchronously. */
  private killSync(): void {
    const runDir = path.join(this.dir, 'run');
    try {
      for (const file of readdirSync(runDir))
        if (file.endsWith('.pid')) signal(Number(readFileSync(path.join(runDir, file), 'utf8')), 'SIGKILL');
    } catch {
      // nothing started, or already removed
    }
  }
}

function cephConf(o: {
  dir: string;
  fsid: string;
  monPort: number;
  rgwPort: number;
  minPartSize?: number;
}): string {
  return `[global]
fsid = ${o.fsid}
mon host = v2:127.0.0.1:${o.monPort}
public addr = 127.0.0.1
ms bind msgr1 = false
auth cluster required = none
auth service required = none
auth client required = none
ms mon client mode = crc secure
ms client mode = crc secure
run dir = ${o.dir}/run
admin socket = ${o.dir}/run/$name.asok
pid file = ${o.dir}/run/$name.pid
log file = ${o.dir}/log/$name.log
keyring = ${o.dir}/keyring
mon data = ${o.dir}/mon/$cluster-$id
osd data = ${o.dir}/osd/$cluster-$id
osd objectstore = memstore
memstore device bytes = 1073741824
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 1
osd pool default pgp num = 1
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon warn on pool no redundancy = false
mon data avail crit = 0
osd crush chooseleaf type = 0
paxos propose interval = 0.01
paxos min wait = 0.001

[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:${o.rgwPort}
rgw thread pool size = 32
${o.minPartSize === undefined ? '' : `rgw multipart min part size = ${o.minPartSize}\n`}`;
}

function programPath(program: string): string | undefined {
  return ['/usr/bin', '/usr/sbin', '/bin']
    .map((folder) => path.join(folder, program))
    .find((file) => existsSync(file));
}

async function runProgram(program: string, args: string[], dir: string): Promise<string> {
  try {
    const { stdout } = await run(programPath(program) ?? program, args, {
      cwd: dir,
      timeout: READY_WITHIN_MS,
    });
    return stdout;
  } catch (error) {
    const { stderr = '', stdout = '' } = error as { stderr?: string; stdout?: string };
    throw new Error(`${program} ${args.join(' ')} failed: ${(stderr || stdout).trim() || String(error)}`);
  }
}

/** Anonymous `GET /` answers (a bucket list or 403) once radosgw has joined the cluster. */
async function untilAnswering(endpoint: string, logFile: string): Promise<void> {
  const deadline = Date.now() + READY_WITHIN_MS;
  for (;;) {
    try {
      const answer = await fetch(`${endpoint}/`, { signal: AbortSignal.timeout(2_000) });
      await answer.arrayBuffer();
      return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      const log = await readFile(logFile, 'utf8').catch(() => '(no log)');
      throw new Error(
        `radosgw did not answer ${endpoint} within ${READY_WITHIN_MS / 1000} s; its log ends:\n${log.trim().split('\n').slice(-10).join('\n')}`,
      );
    }
    await sleep(100);
  }
}

async function createBucket(endpoint: string, bucket: string, accessKeyId: string, secretAccessKey: string) {
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
  });
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
}

/** A free TCP port on 127.0.0.1 below the ephemeral range. */
async function lowFreePort(): Promise<number> {
  for (;;) {
    const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from));
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
