import { describe, expect, it } from 'vitest';
import {
  cpuSecondsBetween,
  descendants,
  parseProcStat,
  readProcStat,
  treeCpuTicks,
  type ProcStat,
} from './process-tree.js';

/** A /proc/<pid>/stat line with the given fields; every other field 0. */
function statLine(pid: number, comm: string, ppid: number, [u, s, cu, cs]: number[]): string {
  const fields = ['S', ppid, ...Array(9).fill(0), u, s, cu, cs, ...Array(35).fill(0)];
  return `${pid} (${comm}) ${fields.join(' ')}`;
}

describe('parseProcStat', () => {
  it('reads the parent and adds user, system and waited-for children times', () => {
    expect(parseProcStat(statLine(42, 'postgres', 7, [10, 5, 30, 2]))).toEqual({
      pid: 42,
      ppid: 7,
      comm: 'postgres',
      cpuTicks: 47,
    });
  });

  it('counts the fields from the last parenthesis, whatever the name holds', () => {
    const stat = parseProcStat(statLine(9, 'a) (b 1 2 3', 4, [1, 2, 3, 4]));
    expect(stat.comm).toBe('a) (b 1 2 3');
    expect(stat.ppid).toBe(4);
    expect(stat.cpuTicks).toBe(10);
  });

  it("parses this very process's own line", () => {
    const own = readProcStat(process.pid);
    expect(own?.pid).toBe(process.pid);
    expect(own?.ppid).toBe(process.ppid);
  });
});

describe('treeCpuTicks', () => {
  // postmaster 1 -> backends 2, 3 -> 3's child 4; nginx 10 -> worker 11
  const tree: Record<number, number[]> = { 1: [2, 3], 3: [4], 10: [11] };
  const ticks: Record<number, number> = { 1: 100, 2: 5, 3: 7, 4: 1, 10: 20, 11: 30 };
  const probe = {
    children: (pid: number) => tree[pid] ?? [],
    stat: (pid: number): ProcStat | undefined =>
      pid in ticks ? { pid, ppid: 0, comm: 'x', cpuTicks: ticks[pid] } : undefined,
  };

  it('walks every level below each root and sums by label', () => {
    expect(descendants(1, probe.children)).toEqual([1, 2, 3, 4]);
    expect(
      treeCpuTicks(
        [
          { label: 'postgresql', pid: 1 },
          { label: 'nginx', pid: 10 },
        ],
        probe,
      ),
    ).toEqual({ postgresql: 113, nginx: 50 });
  });

  it('adds roots of one label together and skips a process that exited during the walk', () => {
    const gone = { ...probe, stat: (pid: number) => (pid === 3 ? undefined : probe.stat(pid)) };
    expect(
      treeCpuTicks(
        [
          { label: 'instances', pid: 1 },
          { label: 'instances', pid: 10 },
        ],
        gone,
      ),
    ).toEqual({ instances: 100 + 5 + 1 + 20 + 30 });
  });

  it('turns two readings into seconds of CPU by label', () => {
    expect(cpuSecondsBetween({ nginx: 50, postgresql: 10 }, { nginx: 250, postgresql: 60 }, 100)).toEqual({
      nginx: 2,
      postgresql: 0.5,
    });
  });
});
