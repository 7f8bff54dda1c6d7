/**
 * Section sandbox: the shared sandbox against the embedded default, side by side in
 * one run. One instance on SQLite and 1, 2 and 3 instances on one PostgreSQL, each behind its own
 * nginx (bench/support/sandbox-configs.ts), all running at once; every measure takes turns between
 * them, round by round, so the machine's drift falls on all alike. Measured per configuration:
 *
 * - a read (GET /predict/{id} of a completed prediction) and an acknowledged write (POST /image
 *   opening a resumable upload: a committed row before the answer), autocannon, same connections,
 *   each connection writing as an organization of its own (a sandbox serves many; one
 *   organization's cap-checked writes are one at a time by design, docs/sandbox.md);
 * - the upload-predict-export loop with several clients (loops/s, p99 per loop), whence jobs/s per
 *   worker core (every instance runs one segmentation child, bounded by the machine's cores);
 * - PostgreSQL's and SQLite's own commit rates on the same disk, the ceiling of acknowledged writes.
 *
 * On two cores the instances share the cores they would each need, so the figures are the cost of
 * sharing state through PostgreSQL, not a speed-up (docs/benchmarks.md says so).
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { HttpApi } from '../../test-support/api-client.js';
import { Cleanup } from '../support/cleanup.js';
import { postgresCommitCeiling, sqliteCommitCeiling } from '../support/commit-ceiling.js';
import { presetTiff } from '../support/fixtures.js';
import { loopClient, newTally } from '../support/loop-client.js';
import { median, percentile, type BenchContext, type SectionResult } from '../support/report.js';
import { startConfigurations, type Configuration } from '../support/sandbox-configs.js';
import {
  CONNECTIONS,
  otherStatuses,
  SANDBOX_BENCH_INSTANCE_ARGS,
  WRITE_ROUTE,
  writeLoad,
  writerKeys,
} from '../support/sandbox-load.js';
import {
  sandboxRows,
  type ConfigurationFigures,
  type LoopFigures,
  type RouteFigures,
  type SandboxFigures,
} from '../support/sandbox-rows.js';

const POSTGRES_INSTANCES = [1, 2, 3];

interface Target {
  configuration: Configuration;
  /** One organization's key per connection: the write route's cap check locks its organization's row. */
  keys: string[];
  readPath: string;
}

export async function runSandboxBench(ctx: BenchContext): Promise<SectionResult> {
  const rounds = ctx.quick ? 1 : 3;
  const warm = ctx.quick ? 0.5 : 1;
  const measure = ctx.quick ? 2 : 5;
  const loopSeconds = ctx.quick ? 4 : 10;
  const loopClients = ctx.quick ? 4 : 8;
  const cleanup = new Cleanup();
  const signals = cleanup.onSignals(ctx.log);
  try {
    const { all, postgresUrl } = await startConfigurations({
      postgresInstances: POSTGRES_INSTANCES,
      instanceArgs: SANDBOX_BENCH_INSTANCE_ARGS,
      log: ctx.log,
      cleanup,
    });
    const targets: Target[] = [];
    for (const configuration of all) {
      ctx.log(
        `sandbox: ${configuration.name}: an organization per connection with raised caps, one completed prediction`,
      );
      targets.push(await prepare(configuration));
    }

    const read = new Map<string, RouteFigures[]>();
    const write = new Map<string, RouteFigures[]>();
    const loops = new Map<string, LoopFigures[]>();
    const add = <T>(map: Map<string, T[]>, name: string, value: T) =>
      map.set(name, [...(map.get(name) ?? []), value]);
    for (let round = 0; round < rounds; round++) {
      // each round starts with the next configuration, so none always runs first
      const order = targets.map((_, i) => targets[(i + round) % targets.length]);
      for (const t of order) {
        const name = t.configuration.name;
        ctx.log(
          `sandbox: round ${round + 1}/${rounds}, ${name}: read, write (${measure} s each), loop (${loopSeconds} s)`,
        );
        await cannon(t, 'read', warm);
        add(read, name, await cannon(t, 'read', measure));
        await cannon(t, 'write', warm);
        add(write, name, await cannon(t, 'write', measure));
        add(loops, name, await loopRun(t, loopClients, loopSeconds));
      }
    }

    ctx.log(`sandbox: commit ceilings on this disk (${measure} s each)`);
    const workDir = await mkdtemp(path.join(ctx.tmpDir, 'ceiling-'));
    const pgCeiling = await postgresCommitCeiling(postgresUrl, CONNECTIONS, measure, workDir);
    const sqliteCeiling = sqliteCommitCeiling(workDir, measure);

    const cpus = os.availableParallelism();
    const figures: SandboxFigures = {
      cpus,
      connections: CONNECTIONS,
      readRoute: 'GET /predict/{id}',
      writeRoute: WRITE_ROUTE,
      configurations: targets.map(({ configuration: c }): ConfigurationFigures => ({
        name: c.name,
        engine: c.engine,
        instances: c.instances,
        read: medianRoute(read.get(c.name)!),
        write: medianRoute(write.get(c.name)!),
        loop: medianLoop(loops.get(c.name)!),
        workerCores: Math.min(cpus, c.instances),
      })),
      ceilings: { postgresql: pgCeiling, sqlite: sqliteCeiling },
    };
    return {
      rows: sandboxRows(figures),
      data: {
        ...figures,
        rounds,
        measureSeconds: measure,
        loopSeconds,
        raw: { read: [...read], write: [...write], loops: [...loops] },
      },
    };
  } finally {
    ctx.log('sandbox: stopping every configuration and PostgreSQL');
    await cleanup.run();
    signals.release();
  }
}

async function prepare(configuration: Configuration): Promise<Target> {
  const keys = await writerKeys(configuration, 'bench-sandbox');
  const api = new HttpApi(configuration.url, keys[0]);
  const image = await api.uploadBytes(presetTiff('easy-8bit-256'), 'sandbox-read.tif');
  const ack = await api.predict(image.id);
  const done = await api.pollPrediction(ack.prediction_id);
  if (done.status !== 'COMPLETED')
    throw new Error(`${configuration.name}: the prediction ended ${done.status}`);
  return { configuration, keys, readPath: `/api/v1/predict/${ack.prediction_id}` };
}

async function cannon(t: Target, kind: 'read' | 'write', seconds: number): Promise<RouteFigures> {
  const result = await autocannon(
    kind === 'read'
      ? {
          url: t.configuration.url + t.readPath,
          connections: CONNECTIONS,
          duration: seconds,
          headers: { authorization: `Bearer ${t.keys[0]}` },
        }
      : writeLoad(t.configuration.url, t.keys, { duration: seconds }),
  );
  return {
    rps: result.requests.average,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    statuses: otherStatuses(result),
    errors: result.errors + result.timeouts,
  };
}

async function loopRun(t: Target, clients: number, seconds: number): Promise<LoopFigures> {
  const bytes = presetTiff('easy-8bit-256');
  const tallies = Array.from({ length: clients }, newTally);
  const deadline = Date.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    tallies.map((tally) =>
      loopClient(new HttpApi(t.configuration.url, t.keys[0]), bytes, deadline, 1e6, tally),
    ),
  );
  const wall = (performance.now() - started) / 1000;
  return {
    clients,
    loopsPerSecond: tallies.reduce((s, x) => s + x.iterations, 0) / wall,
    p99LoopMs: percentile(
      tallies.flatMap((x) => x.iterationMs),
      99,
    ),
    failures: tallies.reduce((s, x) => s + x.failures.length, 0),
  };
}

function medianRoute(runs: RouteFigures[]): RouteFigures {
  return {
    rps: median(runs.map((r) => r.rps)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    non2xx: runs.reduce((s, r) => s + r.non2xx, 0),
    statuses: runs.reduce<Record<string, number>>((all, r) => {
      for (const [status, n] of Object.entries(r.statuses ?? {})) all[status] = (all[status] ?? 0) + n;
      return all;
    }, {}),
    errors: runs.reduce((s, r) => s + r.errors, 0),
  };
}

function medianLoop(runs: LoopFigures[]): LoopFigures {
  return {
    clients: runs[0].clients,
    loopsPerSecond: median(runs.map((r) => r.loopsPerSecond)),
    p99LoopMs: median(runs.map((r) => r.p99LoopMs)),
    failures: runs.reduce((s, r) => s + r.failures, 0),
  };
}
