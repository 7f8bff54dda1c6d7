import { describe, expect, it } from 'vitest';
import {
  microsecondsPerRequest,
  sandboxCostRows,
  type CostFigures,
  type LoadCost,
} from './sandbox-cost-rows.js';

const load = (requests: number, rps: number, cpuSeconds: Record<string, number>): LoadCost => ({
  requests,
  rps,
  cpuSeconds,
  non2xx: 0,
  statuses: {},
  errors: 0,
});

const figures = (sandboxRead: LoadCost, walBytes: number): CostFigures => ({
  cpus: 2,
  connections: 10,
  readRoutes: 'GET /models and GET /image/{id} in turn',
  writeRoute: 'POST /image (resumable)',
  configurations: [
    {
      name: 'SQLite x1',
      engine: 'sqlite',
      instances: 1,
      read: load(10_000, 2_000, { instances: 1.5, nginx: 0.5 }),
      write: load(1_000, 200, { instances: 0.4, nginx: 0.1 }),
    },
    {
      name: 'PostgreSQL x3',
      engine: 'postgresql',
      instances: 3,
      read: sandboxRead,
      write: load(1_000, 150, { instances: 0.6, postgresql: 0.3, nginx: 0.1 }),
    },
  ],
  floors: [
    {
      name: 'node:http + one PostgreSQL read',
      servers: 1,
      read: load(10_000, 1_500, { server: 2, postgresql: 1, nginx: 0.5 }),
    },
  ],
  wal: {
    gets: 10_000,
    non2xx: 0,
    seconds: 5,
    bytes: walBytes,
    idleBytes: 4_000,
    checkpoints: 0,
    autovacuums: 0,
    transactionsPerRead: 5,
  },
});

describe('sandboxCostRows', () => {
  it('divides the CPU of every process by the 2xx answers', () => {
    expect(microsecondsPerRequest(load(4_000, 1, { instances: 0.6, postgresql: 0.2 }))).toBeCloseTo(200);
  });

  it('meets the targets when the sandbox reads at under 2x the CPU, over 0.4x the rate, under 1 MB of WAL', () => {
    const rows = sandboxCostRows(
      figures(load(5_000, 1_000, { instances: 1.2, postgresql: 0.6, nginx: 0.2 }), 22_000),
    );
    const [cpu, floor, rps, write, wal] = rows;
    expect(floor.ok).toBeNull();
    expect(floor.ratio).toBe('1.75x');
    expect(cpu.ours).toBe('400 µs CPU/request (instances 240, postgresql 120, nginx 40)');
    expect(cpu.ratio).toBe('2.00x');
    expect(cpu.ok).toBe(true);
    expect(rps.ratio).toBe('0.50x');
    expect(rps.ok).toBe(true);
    expect(write.ok).toBeNull();
    expect(write.ratio).toBe('2.00x');
    expect(wal.ok).toBe(true);
    expect(wal.ours).toContain('22,000 bytes');
    expect(rows.some((r) => r.why)).toBe(false);
  });

  it('misses each target just past it', () => {
    const rows = sandboxCostRows(
      figures(load(5_000, 790, { instances: 1.3, postgresql: 0.6, nginx: 0.2 }), 1024 * 1024),
    );
    expect(rows.map((r) => r.ok)).toEqual([false, null, false, null, false]);
    expect(rows[0].why).toMatch(
      /^a bare node:http server that asks PostgreSQL once per read .* costs 1\.75x the embedded instance's CPU per read in the same run: the database's round trip alone fits the target, the mock's own work on top of it does not; the sandbox costs 1\.20x the floor's\. every read made 5\.0 PostgreSQL transactions .*: the instances burnt 260 µs per read against 150 µs, PostgreSQL's processes 120 µs more/,
    );
    expect(rows[2].why).toContain('(2.10x of the embedded instance');
    expect(rows[2].why).toContain('the floor (node:http + one PostgreSQL read) reads at 0.75x');
  });

  it('says when the floor alone is past the target', () => {
    const f = figures(load(5_000, 500, { instances: 3 }), 300_000);
    const rows = sandboxCostRows({
      ...f,
      floors: [{ ...f.floors[0], read: load(10_000, 900, { server: 4.5 }) }],
    });
    expect(rows[0].why).toContain(
      "costs 2.25x the embedded instance's CPU per read in the same run: in this run, the floor alone was past 2x, so no instance that reads the shared database on each request could have met it",
    );
  });

  it('gives each PostgreSQL configuration its rows against the embedded instance, the floor once, the WAL of the last', () => {
    const f = figures(load(5_000, 1_000, { instances: 1.2, postgresql: 0.6, nginx: 0.2 }), 22_000);
    const one = {
      ...f.configurations[1],
      name: 'PostgreSQL x1',
      instances: 1,
      read: load(5_000, 1_600, { instances: 0.8, postgresql: 0.3, nginx: 0.2 }),
    };
    const rows = sandboxCostRows({ ...f, configurations: [f.configurations[0], one, f.configurations[1]] });
    expect(
      rows.map((r) => r.metric.replace(/^(CPU per read|reads|CPU per acknowledged write|WAL).*?: /, '$1: ')),
    ).toEqual([
      'CPU per read: 1 instance on PostgreSQL',
      expect.stringContaining('the floor'),
      'reads: 1 instance on PostgreSQL',
      'CPU per acknowledged write: 1 instance on PostgreSQL',
      'CPU per read: 3 instances on PostgreSQL',
      'reads: 3 instances on PostgreSQL',
      'CPU per acknowledged write: 3 instances on PostgreSQL',
      expect.stringMatching(/^WAL.* through 3 instances on PostgreSQL/),
    ]);
    expect(rows.filter((r) => r.metric.startsWith('reads (')).map((r) => [r.ratio, r.ok])).toEqual([
      ['0.80x', true],
      ['0.50x', true],
    ]);
  });

  it('sets each configuration beside the floor with as many processes as it has instances', () => {
    const f = figures(load(5_000, 790, { instances: 1.3, postgresql: 0.6, nginx: 0.2 }), 22_000);
    const three = {
      name: '3 node:http processes, each with one PostgreSQL read',
      servers: 3,
      read: load(10_000, 1_000, { server: 5, postgresql: 1.5, nginx: 0.5 }),
    };
    const rows = sandboxCostRows({ ...f, floors: [...f.floors, three] });
    expect(rows.map((r) => r.metric.replace(/^.*?every process: /, ''))).toContain(
      'the floor, 3 node:http processes, each with one PostgreSQL read (one prepared statement, nothing else)',
    );
    expect(rows[0].why).toMatch(
      /^3 bare node:http servers that ask PostgreSQL once per read and do nothing else, sharing the cores as the 3 instances do \(their floor row below\), cost 3\.50x .*: in this run, the floor alone was past 2x, so no instance that reads the shared database on each request could have met it .*; the sandbox costs 0\.60x the floor's/,
    );
    expect(rows[2].why).toContain(
      'the floor (3 node:http processes, each with one PostgreSQL read) reads at',
    );
  });

  it('says when a checkpoint or an autovacuum run fell inside the WAL measure', () => {
    const f = figures(load(5_000, 1_000, { instances: 1 }), 300_000);
    const rows = sandboxCostRows({ ...f, wal: { ...f.wal, checkpoints: 1, autovacuums: 2 } });
    expect(rows[4].ours).toContain('1 checkpoint(s) inside, 2 autovacuum run(s) inside');
  });
});
