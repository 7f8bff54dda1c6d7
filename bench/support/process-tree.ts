/**
 * A process and everything below it, read from /proc: the walk (children from
 * /proc/<pid>/task/<tid>/children, read again at each call since children come and go) and the
 * CPU time the tree has used, from /proc/<pid>/stat.
 *
 * CPU of a tree = for each live process, utime + stime (all its threads) + cutime + cstime (what
 * its exited children used, once it has waited for them). A child that exits between two readings
 * (a PostgreSQL backend whose connection closed, a decoder child stopped for idleness) thus stays
 * counted, through its parent, and the difference of two readings is what the tree burnt between
 * them.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** What one process's /proc/<pid>/stat says that the walk and the sums need. */
export interface ProcStat {
  pid: number;
  ppid: number;
  /** The command's name (at most 15 characters), without its parentheses. */
  comm: string;
  /** utime + stime + cutime + cstime, in clock ticks. */
  cpuTicks: number;
}

/**
 * One /proc/<pid>/stat line. The name sits in parentheses and may hold spaces and parentheses
 * itself, so the fields after it are counted from the last ')'.
 */
export function parseProcStat(line: string): ProcStat {
  const open = line.indexOf('(');
  const close = line.lastIndexOf(')');
  if (open < 0 || close < open) throw new Error(`not a /proc/<pid>/stat line: ${line.slice(0, 80)}`);
  // After the name: state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17)
  const rest = line
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const field = (n: number) => Number(rest[n - 3]);
  return {
    pid: Number(line.slice(0, open).trim()),
    ppid: field(4),
    comm: line.slice(open + 1, close),
    cpuTicks: field(14) + field(15) + field(16) + field(17),
  };
}

/** The ids of a process's children now; none once it has exited. */
export function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const tid of tasks) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    } catch {
      /* the thread exited */
    }
  }
  return out;
}

/** `pid` first, then every process below it, breadth first. */
export function descendants(pid: number, children: (pid: number) => number[] = childrenOf): number[] {
  const all = [pid];
  for (let i = 0; i < all.length; i++) all.push(...children(all[i]));
  return all;
}

/** The /proc/<pid>/stat of a live process; undefined once it has exited. */
export function readProcStat(pid: number): ProcStat | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

export interface TreeRoot {
  /** What the tree is ("instances", "postgresql", "nginx"): the sums are by label. */
  label: string;
  pid: number;
}

/** CPU ticks of each labelled tree, summed over every process in it (see the top of this file). */
export function treeCpuTicks(
  roots: TreeRoot[],
  probe: { children(pid: number): number[]; stat(pid: number): ProcStat | undefined } = {
    children: childrenOf,
    stat: readProcStat,
  },
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const root of roots) {
    out[root.label] ??= 0;
    for (const pid of descendants(root.pid, probe.children))
      out[root.label] += probe.stat(pid)?.cpuTicks ?? 0;
  }
  return out;
}

/** The difference of two readings of `treeCpuTicks`, in seconds, by label. */
export function cpuSecondsBetween(
  before: Record<string, number>,
  after: Record<string, number>,
  ticksPerSecond: number,
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after).map(([label, ticks]) => [label, (ticks - (before[label] ?? 0)) / ticksPerSecond]),
  );
}

let clockTicks: number | undefined;
/** The kernel's USER_HZ, the unit of /proc/<pid>/stat's times (100 on every Linux we know of). */
export function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}
