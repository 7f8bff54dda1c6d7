import { describe, expect, it } from 'vitest';
import {
  sandboxRows,
  sandboxSizingText,
  type ConfigurationFigures,
  type SandboxFigures,
} from './sandbox-rows.js';

function configuration(
  engine: 'sqlite' | 'postgresql',
  instances: number,
  rps: { read: number; write: number; loops: number },
): ConfigurationFigures {
  return {
    name: `${engine} x${instances}`,
    engine,
    instances,
    read: { rps: rps.read, p99Ms: 10, non2xx: 0, errors: 0 },
    write: { rps: rps.write, p99Ms: 20, non2xx: 0, errors: 0 },
    loop: { clients: 8, loopsPerSecond: rps.loops, p99LoopMs: 400, failures: 0 },
    workerCores: Math.min(2, instances),
  };
}

const figures: SandboxFigures = {
  cpus: 2,
  connections: 10,
  readRoute: 'GET /predict/{id}',
  writeRoute: 'POST /image',
  configurations: [
    configuration('sqlite', 1, { read: 1000, write: 400, loops: 4 }),
    configuration('postgresql', 1, { read: 500, write: 200, loops: 3 }),
    configuration('postgresql', 3, { read: 600, write: 300, loops: 4 }),
  ],
  ceilings: {
    postgresql: { commitsPerSecond: 1000, connections: 10, tool: 'pgbench 15' },
    sqlite: { commitsPerSecond: 800, connections: 1, tool: 'node:sqlite' },
  },
};

describe('sandboxRows', () => {
  const rows = sandboxRows(figures);
  const find = (pattern: RegExp) => rows.filter((r) => pattern.test(r.metric));

  it('sets every PostgreSQL read against the SQLite configuration of the same run', () => {
    const reads = find(/^GET \/predict/);
    expect(reads.map((r) => r.ratio)).toEqual(['0.50x req/s, 1.00x p99', '0.60x req/s, 1.00x p99']);
    expect(reads.every((r) => r.peer.startsWith('1 instance on SQLite: 1,000 req/s'))).toBe(true);
  });

  it('sets acknowledged writes against SQLite and against the commit ceiling, per instance too', () => {
    const [one, three] = find(/^POST \/image.*PostgreSQL/);
    expect(one.ratio).toBe('0.50x req/s, 1.00x p99; 0.20x of the ceiling');
    expect(three.ours).toContain('100 writes/s per instance');
    expect(find(/^POST \/image.*SQLite/)[0].ratio).toBe('0.50x of the ceiling');
  });

  it('gives jobs/s per worker core: predictions completed per second over the worker cores', () => {
    const loops = find(/^upload-predict-export loop/);
    expect(loops).toHaveLength(3);
    expect(loops[2].ours).toContain('2.0 jobs/s per worker core');
    expect(loops[2].ratio).toBe('1.00x loops/s, 1.00x p99');
  });

  it('sets no target: on two cores the figures are the cost of sharing', () => {
    expect(rows.every((r) => r.ok === null)).toBe(true);
  });
});

describe('sandboxSizingText', () => {
  it('gives writes/s per instance and jobs/s per worker core', () => {
    const [text] = sandboxSizingText(figures);
    expect(text).toMatch(/cost of sharing/);
    expect(text).toContain('3 instances together 300 writes/s, 100 per instance');
    expect(text).toContain('3.0 jobs/s per worker core with one instance and 2.0 with 3');
  });

  it('says nothing when the section has not run', () => {
    expect(sandboxSizingText(undefined)).toEqual([]);
  });
});
