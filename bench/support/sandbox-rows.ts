/**
 * The sandbox section's figures turned into table rows and the sizing paragraph: pure, so that
 * what the page says is tested apart from the measuring. Every PostgreSQL figure is a ratio against
 * the SQLite configuration of the same run, and acknowledged writes against the engine's own
 * commit rate on the same disk.
 */
import type { CommitCeiling } from './commit-ceiling.js';
import { fmt, type Row } from './report.js';

export interface RouteFigures {
  rps: number;
  p99Ms: number;
  non2xx: number;
  /** How many answers of each status other than 2xx (what the non-2xx were). */
  statuses?: Record<string, number>;
  errors: number;
}

export interface LoopFigures {
  clients: number;
  loopsPerSecond: number;
  p99LoopMs: number;
  failures: number;
}

export interface ConfigurationFigures {
  name: string;
  engine: 'sqlite' | 'postgresql';
  instances: number;
  read: RouteFigures;
  write: RouteFigures;
  loop: LoopFigures;
  /** Segmentation children that could run at once, bounded by the machine's cores. */
  workerCores: number;
}

export interface SandboxFigures {
  cpus: number;
  connections: number;
  readRoute: string;
  writeRoute: string;
  /** The SQLite configuration first: the peer of the others. */
  configurations: ConfigurationFigures[];
  ceilings: { postgresql: CommitCeiling; sqlite: CommitCeiling };
}

const NO_TARGET = 'none: on two cores this is the cost of sharing, not speed-up';

export const jobsPerWorkerCore = (c: ConfigurationFigures) => c.loop.loopsPerSecond / c.workerCores;

const route = (r: RouteFigures) =>
  `${fmt.rps(r.rps)}, p99 ${fmt.ms(r.p99Ms)}${r.non2xx || r.errors ? ` (${r.non2xx} non-2xx${statusList(r.statuses)}, ${r.errors} errors)` : ''}`;

/** `: 503 x 12, 429 x 3`, most frequent first; nothing when no status was recorded. */
function statusList(statuses: Record<string, number> | undefined): string {
  const entries = Object.entries(statuses ?? {}).sort((a, b) => b[1] - a[1]);
  return entries.length ? `: ${entries.map(([status, n]) => `${status} x ${n}`).join(', ')}` : '';
}
const loop = (l: LoopFigures) =>
  `${l.loopsPerSecond.toFixed(1)} loops/s, p99 ${fmt.ms(l.p99LoopMs)} per loop${l.failures ? ` (${l.failures} failed)` : ''}`;
const instancesOn = (c: ConfigurationFigures) =>
  `${c.instances} instance${c.instances > 1 ? 's' : ''} on ${c.engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`;

export function sandboxRows(f: SandboxFigures): Row[] {
  const [base, ...others] = f.configurations;
  const { postgresql: pgCeiling, sqlite: sqliteCeiling } = f.ceilings;
  const ceilingOf = (c: ConfigurationFigures) => (c.engine === 'sqlite' ? sqliteCeiling : pgCeiling);
  const rows: Row[] = [
    {
      section: 'Sandbox',
      metric: `commit ceiling: single-row INSERT + COMMIT, PostgreSQL (${pgCeiling.tool}, ${pgCeiling.connections} connections) on the same disk`,
      ours: `${Math.round(pgCeiling.commitsPerSecond)} commits/s`,
      peer: `SQLite (${sqliteCeiling.tool}, one writer): ${Math.round(sqliteCeiling.commitsPerSecond)} commits/s`,
      ratio: fmt.x(pgCeiling.commitsPerSecond / sqliteCeiling.commitsPerSecond),
      target: 'none (the disk is the ceiling)',
      ok: null,
    },
    {
      section: 'Sandbox',
      metric: `${f.writeRoute}, ${f.connections} connections through nginx: ${instancesOn(base)} (acknowledged writes)`,
      ours: route(base.write),
      peer: `SQLite commit ceiling ${Math.round(sqliteCeiling.commitsPerSecond)}/s`,
      ratio: `${fmt.x(base.write.rps / sqliteCeiling.commitsPerSecond)} of the ceiling`,
      target: NO_TARGET,
      ok: null,
    },
  ];
  for (const c of others) {
    rows.push({
      section: 'Sandbox',
      metric: `${f.readRoute}, ${f.connections} connections through nginx: ${instancesOn(c)}`,
      ours: route(c.read),
      peer: `${instancesOn(base)}: ${route(base.read)}`,
      ratio: `${fmt.x(c.read.rps / base.read.rps)} req/s, ${fmt.x(c.read.p99Ms / base.read.p99Ms)} p99`,
      target: NO_TARGET,
      ok: null,
    });
  }
  for (const c of others) {
    const ceiling = ceilingOf(c).commitsPerSecond;
    rows.push({
      section: 'Sandbox',
      metric: `${f.writeRoute}, ${f.connections} connections through nginx: ${instancesOn(c)} (acknowledged writes)`,
      ours: `${route(c.write)}; ${Math.round(c.write.rps / c.instances)} writes/s per instance`,
      peer: `${instancesOn(base)}: ${route(base.write)}; PostgreSQL commit ceiling ${Math.round(ceiling)}/s`,
      ratio:
        `${fmt.x(c.write.rps / base.write.rps)} req/s, ${fmt.x(c.write.p99Ms / base.write.p99Ms)} p99; ` +
        `${fmt.x(c.write.rps / ceiling)} of the ceiling`,
      target: NO_TARGET,
      ok: null,
    });
  }
  for (const c of [base, ...others]) {
    const isBase = c === base;
    rows.push({
      section: 'Sandbox',
      metric:
        `upload-predict-export loop, ${c.loop.clients} clients through nginx: ${instancesOn(c)} ` +
        `(jobs/s per worker core: predictions completed per second / ${c.workerCores} worker core${c.workerCores > 1 ? 's' : ''})`,
      ours: `${loop(c.loop)}; ${jobsPerWorkerCore(c).toFixed(1)} jobs/s per worker core`,
      peer: isBase ? 'the peer of the PostgreSQL rows below' : `${instancesOn(base)}: ${loop(base.loop)}`,
      ratio: isBase
        ? ''
        : `${fmt.x(c.loop.loopsPerSecond / base.loop.loopsPerSecond)} loops/s, ` +
          `${fmt.x(c.loop.p99LoopMs / base.loop.p99LoopMs)} p99`,
      target: NO_TARGET,
      ok: null,
    });
  }
  return rows;
}

/** The Limits paragraph a partner sizes a sandbox from; empty when the section has not run. */
export function sandboxSizingText(data: unknown): string[] {
  const f = data as Partial<SandboxFigures> | undefined;
  if (!f?.configurations || f.configurations.length < 2 || !f.ceilings) return [];
  const pg = f.configurations.filter((c) => c.engine === 'postgresql');
  const one = pg[0];
  const most = pg[pg.length - 1];
  const ceiling = f.ceilings.postgresql.commitsPerSecond;
  return [
    `- **Sizing a sandbox.** Measured on ${f.cpus} cores shared by every piece (PostgreSQL, nginx, ` +
      `the instances, their segmentation children and the load generator): adding instances here ` +
      `divides the same cores, so these figures show the cost of sharing state through PostgreSQL, ` +
      `not the speed-up a host with cores to spare would see. One instance on PostgreSQL acknowledged ` +
      `${Math.round(one.write.rps)} writes/s (${fmt.x(one.write.rps / ceiling)} of PostgreSQL's own ` +
      `commit rate on this disk, ${Math.round(ceiling)}/s with ${f.ceilings.postgresql.connections} connections); ` +
      `${most.instances} instances together ${Math.round(most.write.rps)} writes/s, ` +
      `${Math.round(most.write.rps / most.instances)} per instance. Predictions of a small image ran at ` +
      `${jobsPerWorkerCore(one).toFixed(1)} jobs/s per worker core with one instance and ` +
      `${jobsPerWorkerCore(most).toFixed(1)} with ${most.instances} (${most.workerCores} worker cores). To size: ` +
      `expected acknowledged writes/s divided by the writes/s per instance gives the API instances (the ` +
      `commit ceiling bounds them all together: past it, add disk, not instances); expected predictions/s ` +
      `divided by the jobs/s per worker core (scaled by image area: segmentation time grows with pixels, ` +
      `see the limits row) gives the worker cores (\`--role worker\`).`,
  ];
}
