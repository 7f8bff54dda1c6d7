/**
 * Section sandbox-cost: what a request costs the machine in a 3-instance sandbox on PostgreSQL, and
 * in one instance on PostgreSQL, against one embedded instance (SQLite) behind the same kind of
 * nginx, in one run (bench/support/sandbox-configs.ts starts them; they take turns, round by round).
 *
 * - CPU per request: utime+stime of every process of a configuration (the instances and their
 *   children, nginx's master and workers, and for the sandbox the postmaster and everything below
 *   it: backends, checkpointer, walwriter, autovacuum), read from /proc before and after a load,
 *   divided by the 2xx answers (bench/support/process-tree.ts). The load generator (this process)
 *   is left out of both. For reads (GET /models and GET /image/{id} in turn, a seed key) and for
 *   acknowledged writes (POST /image opening a resumable upload, bench/support/sandbox-load.ts).
 *   The writes' measure on PostgreSQL ends with the database's clean-up after them (a VACUUM,
 *   autovacuum let finish), so that the next round's reads are not charged for it.
 * - req/s of the same reads.
 * - The WAL 10,000 of those reads write through the sandbox (pg_current_wal_lsn before and after,
 *   after a VACUUM and a quiet moment; checkpoints and autovacuum runs counted so that one falling
 *   inside is said), beside what the
 *   idle sandbox writes in the same time; and PostgreSQL's transactions per read over the same
 *   reads (pg_stat_database), which is where the sandbox's extra CPU per read goes.
 */
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon, { type Options } from 'autocannon';
import pg from 'pg';
import { ACME_KEY, HttpApi } from '../../test-support/api-client.js';
import { Cleanup } from '../support/cleanup.js';
import { presetTiff } from '../support/fixtures.js';
import {
  cpuSecondsBetween,
  readProcStat,
  ticksPerSecond,
  treeCpuTicks,
  type TreeRoot,
} from '../support/process-tree.js';
import { median, type BenchContext, type SectionResult } from '../support/report.js';
import {
  sandboxCostRows,
  type CostFigures,
  type LoadCost,
  type WalFigures,
} from '../support/sandbox-cost-rows.js';
import {
  startConfigurations,
  startPostgresFloor,
  type Configuration,
  type FloorConfiguration,
} from '../support/sandbox-configs.js';
import {
  CONNECTIONS,
  otherStatuses,
  SANDBOX_BENCH_INSTANCE_ARGS,
  WRITE_ROUTE,
  writeLoad,
  writerKeys,
} from '../support/sandbox-load.js';

const SANDBOX_INSTANCES = 3;
const WAL_GETS = 10_000;
/** Long enough for the instances' last writes of a load to be flushed before the WAL is read. */
const QUIET_MS = 2_000;
/** Longest wait for autovacuum workers to finish before the WAL is measured anyway (and their runs said). */
const AUTOVACUUM_WAIT_MS = 30_000;
/** Longer than PostgreSQL's shortest interval between two reports of a backend's statistics (1 s). */
const STATS_SETTLE_STEP_MS = 1_500;
/** A backend idle since its last report reports within 10 s (PGSTAT_IDLE_INTERVAL). */
const STATS_SETTLE_MAX_MS = 12_000;

interface Target {
  configuration: Configuration;
  /**
   * The database's clean-up after the writes before it (a VACUUM, autovacuum let finish), so that
   * each load pays its own: run inside the writes' measure, autovacuum's work on their dead rows
   * would otherwise fall into the next round's reads. Nothing for the embedded instance, whose
   * SQLite checkpoints run in its own process, during the writes.
   */
  cleanUp(): Promise<void>;
  /** Every process whose CPU the configuration costs. */
  roots(): TreeRoot[];
  readPaths: string[];
  writerKeys: string[];
}

export async function runSandboxCostBench(ctx: BenchContext): Promise<SectionResult> {
  const rounds = ctx.quick ? 1 : 3;
  const warm = ctx.quick ? 0.5 : 1;
  const measure = ctx.quick ? 2 : 5;
  const walGets = ctx.quick ? 2_000 : WAL_GETS;
  const loadBefore = os.loadavg();
  const cleanup = new Cleanup();
  const signals = cleanup.onSignals(ctx.log);
  try {
    const { all, postgresUrl } = await startConfigurations({
      // One instance as well: like for like with the one embedded instance, and, beside the three,
      // what two more instances add on these cores.
      postgresInstances: [1, SANDBOX_INSTANCES],
      instanceArgs: SANDBOX_BENCH_INSTANCE_ARGS,
      log: ctx.log,
      cleanup,
    });
    const postmaster = await postmasterPid(postgresUrl);
    // The floor with as many processes as each PostgreSQL configuration has instances: what sharing
    // the cores among that many servers costs a read whatever the server does.
    const floors: FloorConfiguration[] = [];
    for (const servers of [1, SANDBOX_INSTANCES]) {
      ctx.log(
        `sandbox-cost: starting the floor: ${servers} node:http asking PostgreSQL once per read, behind nginx`,
      );
      floors.push(await startPostgresFloor(postgresUrl, cleanup, servers));
    }
    const targets: Target[] = [];
    for (const configuration of all) {
      ctx.log(`sandbox-cost: ${configuration.name}: an image to read, an organization per write connection`);
      targets.push(
        await prepare(
          configuration,
          configuration.engine === 'postgresql'
            ? () => [...configuration.processes(), { label: 'postgresql', pid: postmaster }]
            : () => configuration.processes(),
        ),
      );
    }

    // The same reads as the others (the image the embedded configuration stored names no row here:
    // the floor answers every path with its one statement).
    const floorTarget = (floor: FloorConfiguration): ReadTarget => ({
      configuration: floor,
      roots: () => [...floor.processes(), { label: 'postgresql', pid: postmaster }],
      readPaths: targets[0].readPaths,
    });
    const reads = new Map<string, LoadCost[]>();
    const floorReads = new Map<string, LoadCost[]>();
    const writes = new Map<string, LoadCost[]>();
    const add = (map: Map<string, LoadCost[]>, name: string, value: LoadCost) =>
      map.set(name, [...(map.get(name) ?? []), value]);
    for (let round = 0; round < rounds; round++) {
      // each round starts with the next configuration, so none always runs first
      const order = targets.map((_, i) => targets[(i + round) % targets.length]);
      for (const t of order) {
        const name = t.configuration.name;
        ctx.log(`sandbox-cost: round ${round + 1}/${rounds}, ${name}: reads, writes (${measure} s each)`);
        await autocannon(readLoad(t, { duration: warm }));
        add(reads, name, await costOf(t, readLoad(t, { duration: measure })));
        await autocannon(writeLoad(t.configuration.url, t.writerKeys, { duration: warm }));
        await t.cleanUp();
        add(
          writes,
          name,
          await costOf(t, writeLoad(t.configuration.url, t.writerKeys, { duration: measure }), t.cleanUp),
        );
      }
      for (const floor of floors) {
        const t = floorTarget(floor);
        ctx.log(`sandbox-cost: round ${round + 1}/${rounds}, ${floor.name}: reads (${measure} s)`);
        await autocannon(readLoad(t, { duration: warm }));
        add(floorReads, floor.name, await costOf(t, readLoad(t, { duration: measure })));
      }
    }

    const sandbox = targets.find((t) => t.configuration.instances === SANDBOX_INSTANCES)!;
    ctx.log(`sandbox-cost: WAL of ${walGets} reads through ${sandbox.configuration.name}, and idle as long`);
    const wal = await walOfReads(sandbox, walGets);

    const figures: CostFigures = {
      cpus: os.availableParallelism(),
      connections: CONNECTIONS,
      readRoutes: 'GET /models and GET /image/{id} in turn',
      writeRoute: WRITE_ROUTE,
      configurations: targets.map(({ configuration: c }) => ({
        name: c.name,
        engine: c.engine,
        instances: c.instances,
        read: medianCost(reads.get(c.name)!),
        write: medianCost(writes.get(c.name)!),
      })),
      floors: floors.map((floor) => ({
        name: floor.name,
        servers: floor.servers,
        read: medianCost(floorReads.get(floor.name)!),
      })),
      wal,
    };
    return {
      rows: sandboxCostRows(figures),
      data: {
        ...figures,
        rounds,
        measureSeconds: measure,
        loadAverage: { before: loadBefore, after: os.loadavg() },
        raw: { reads: [...reads], writes: [...writes], floorReads: [...floorReads] },
      },
    };
  } finally {
    ctx.log('sandbox-cost: stopping both configurations and PostgreSQL');
    await cleanup.run();
    signals.release();
  }
}

/** The server's postmaster: the parent of the backend that answers this connection. */
async function postmasterPid(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const backend = readProcStat(rows[0].pid);
    if (!backend) throw new Error(`PostgreSQL's backend ${rows[0].pid} is not a process of this machine`);
    return backend.ppid;
  } finally {
    await client.end();
  }
}

async function prepare(configuration: Configuration, roots: () => TreeRoot[]): Promise<Target> {
  const api = new HttpApi(configuration.url, ACME_KEY);
  const image = await api.uploadBytes(presetTiff('easy-8bit-256'), 'sandbox-cost-read.tif');
  const { databaseUrl } = configuration;
  return {
    configuration,
    roots,
    cleanUp: databaseUrl ? () => withClient(databaseUrl, vacuumed) : async () => {},
    readPaths: ['/api/v1/models', `/api/v1/image/${image.id}`],
    writerKeys: await writerKeys(configuration, 'bench-sandbox-cost'),
  };
}

/** What a read load needs of a target: where to send it, and whose CPU it costs. */
type ReadTarget = { configuration: { url: string }; roots(): TreeRoot[]; readPaths: string[] };

function readLoad(t: ReadTarget, run: Pick<Options, 'duration' | 'amount'>): Options {
  return {
    ...run,
    url: t.configuration.url,
    connections: CONNECTIONS,
    headers: { authorization: `Bearer ${ACME_KEY}` },
    requests: t.readPaths.map((p) => ({ method: 'GET', path: p })),
  };
}

/** The load run once (and what it leaves to do, `settle`), with the configuration's CPU read before and after. */
async function costOf(t: ReadTarget, load: Options, settle?: () => Promise<void>): Promise<LoadCost> {
  const roots = t.roots();
  const before = treeCpuTicks(roots);
  const result = await autocannon(load);
  await settle?.();
  const cpuSeconds = cpuSecondsBetween(before, treeCpuTicks(roots), ticksPerSecond());
  return {
    requests: result['2xx'],
    rps: result['2xx'] / result.duration,
    cpuSeconds,
    non2xx: result.non2xx,
    statuses: otherStatuses(result),
    errors: result.errors + result.timeouts,
  };
}

function medianCost(runs: LoadCost[]): LoadCost {
  const perRequest = (r: LoadCost) => Object.values(r.cpuSeconds).reduce((a, b) => a + b, 0) / r.requests;
  // The run whose CPU per request is the median one, whole: its breakdown by process adds up.
  const sorted = [...runs].sort((a, b) => perRequest(a) - perRequest(b));
  const middle = sorted[(sorted.length - 1) >> 1];
  return {
    ...middle,
    rps: median(runs.map((r) => r.rps)),
    non2xx: runs.reduce((s, r) => s + r.non2xx, 0),
    errors: runs.reduce((s, r) => s + r.errors, 0),
  };
}

/**
 * The WAL `gets` reads write, on the sandbox's own database. The write loads before leave work to
 * autovacuum, whose WAL (and a checkpoint's full-page images) would be counted as the reads'; so
 * the database is vacuumed first, autovacuum let finish, and both are counted inside the measure.
 */
async function walOfReads(t: Target, gets: number): Promise<WalFigures> {
  return withClient(t.configuration.databaseUrl!, async (client) => {
    const scalar = async (sql: string, params: unknown[] = []) =>
      (await client.query<{ v: string }>(sql, params)).rows[0].v;
    const count = async (sql: string) => Number(await scalar(sql));
    const lsn = () => scalar('SELECT pg_current_wal_lsn()::text AS v');
    const bytesSince = async (from: string) =>
      Number(await scalar('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS v', [from]));
    const checkpoints = () => count('SELECT checkpoints_timed + checkpoints_req AS v FROM pg_stat_bgwriter');
    const autovacuums = () =>
      count('SELECT coalesce(sum(autovacuum_count + autoanalyze_count), 0) AS v FROM pg_stat_all_tables');
    const transactions = () => count('SELECT sum(xact_commit) AS v FROM pg_stat_database');
    await vacuumed(client);
    await sleep(QUIET_MS);
    const transactionsBefore = await settled(transactions);
    const checkpointsBefore = await checkpoints();
    const autovacuumsBefore = await autovacuums();
    const start = await lsn();
    const t0 = performance.now();
    const result = await autocannon(readLoad(t, { amount: gets }));
    const seconds = (performance.now() - t0) / 1000;
    const readBytes = await bytesSince(start);
    const transactionsAfter = await settled(transactions);
    const background = {
      checkpoints: (await checkpoints()) - checkpointsBefore,
      autovacuums: (await autovacuums()) - autovacuumsBefore,
    };
    const idleStart = await lsn();
    await sleep(seconds * 1000);
    const idleBytes = await bytesSince(idleStart);
    return {
      gets: result['2xx'],
      non2xx: result.non2xx + result.errors + result.timeouts,
      seconds,
      bytes: readBytes,
      idleBytes,
      ...background,
      // less the reads of the count itself, one per poll at most: noise against thousands
      transactionsPerRead: (transactionsAfter - transactionsBefore) / result['2xx'],
    };
  });
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The database vacuumed, and autovacuum's workers let finish (for at most AUTOVACUUM_WAIT_MS). */
async function vacuumed(client: pg.Client): Promise<void> {
  await client.query('VACUUM (ANALYZE)');
  const deadline = Date.now() + AUTOVACUUM_WAIT_MS;
  const workers = async () =>
    Number(
      (
        await client.query<{ v: string }>(
          "SELECT count(*) AS v FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'",
        )
      ).rows[0].v,
    );
  while ((await workers()) > 0 && Date.now() < deadline) await sleep(500);
}

/**
 * A PostgreSQL statistics counter once every backend has reported: a backend publishes its counts
 * when idle, at most once a second, so the value is read until it holds still for longer than that.
 */
async function settled(read: () => Promise<number>): Promise<number> {
  const deadline = Date.now() + STATS_SETTLE_MAX_MS;
  let last = await read();
  for (;;) {
    await sleep(STATS_SETTLE_STEP_MS);
    const now = await read();
    if (now === last || Date.now() > deadline) return now;
    last = now;
  }
}
