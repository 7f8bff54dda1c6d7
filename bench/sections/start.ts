/**
 * Start-up, measured from outside as a user meets it: the time from launching `npm start` to the
 * first 200 from GET /api/v1/models (with a seeded key), and the idle memory of everything that
 * launch left running (RSS summed over its process group: npm, sh, node and any child process).
 * Prism (`prism mock openapi/openapi.yaml`), a spec-only mock, is launched the same way in the same
 * run, alternating with ours, so the figures are ratios against a peer on the same machine state.
 *
 * The mock launched directly (`node bin/cellseg-mock.js`, as `npx cellseg-mock` and a container
 * do) is measured too, beside the floor of any Node server: a bare node:http server answering the
 * same request (bench/support/floor-server.mjs), launched directly and through `npm run`. The
 * difference between those two is npm's own start, which `npm start` always pays.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { builtIsCurrent } from '../../bin/dist-status.js';
import { freePort } from '../../contract-tests/harness/child-processes.js';
import { ACME_KEY } from '../../test-support/api-client.js';
import { repoRoot } from '../support/processes.js';
import { fmt, type BenchContext, type SectionResult } from '../support/report.js';
import { restartScale } from './start-scale.js';

/** How long a launched tree sits untouched before its memory is read. */
const IDLE_MS = 3000;

export interface StartSample {
  firstAnswerMs: number;
  idleTreeRssBytes: number;
  /** RSS by command line, for seeing who holds the memory. */
  tree: Array<{ pid: number; command: string; rssBytes: number }>;
}

export interface Launcher {
  name: string;
  command: string;
  args: (port: number) => string[];
}

export const MOCK_LAUNCHER: Launcher = {
  name: 'npm start',
  command: 'npm',
  args: (port) => ['start', '--silent', '--', '--port', String(port), '--log-level', 'silent'],
};

export const DIRECT_LAUNCHER: Launcher = {
  name: 'node bin/cellseg-mock.js',
  command: process.execPath,
  args: (port) => ['bin/cellseg-mock.js', '--port', String(port), '--log-level', 'silent'],
};

const FLOOR_DIRECT: Launcher = {
  name: 'bare node:http server',
  command: process.execPath,
  args: (port) => ['bench/support/floor-server.mjs', '--port', String(port)],
};

const FLOOR_NPM: Launcher = {
  name: 'bare node:http server via npm run',
  command: 'npm',
  args: (port) => ['run', '--silent', 'bench:start-floor', '--', '--port', String(port)],
};

export const PRISM_LAUNCHER: Launcher = {
  name: 'prism mock',
  command: 'npx',
  args: (port) => ['prism', 'mock', 'openapi/openapi.yaml', '--port', String(port), '--errors', 'false'],
};

/** Launches, polls until the first 200, lets the tree idle, sums its RSS, stops it. */
export async function measureStart(launcher: Launcher, idleMs = IDLE_MS): Promise<StartSample> {
  const port = await freePort();
  const launched = process.hrtime.bigint();
  const child = spawn(launcher.command, launcher.args(port), {
    cwd: repoRoot,
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, LOG_LEVEL: 'silent' },
  });
  try {
    await firstOk(`http://127.0.0.1:${port}/api/v1/models`, child);
    const firstAnswerMs = Number(process.hrtime.bigint() - launched) / 1e6;
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    const tree = processGroup(child.pid!);
    return { firstAnswerMs, idleTreeRssBytes: tree.reduce((sum, p) => sum + p.rssBytes, 0), tree };
  } finally {
    await stopGroup(child);
  }
}

async function firstOk(url: string, child: ChildProcess): Promise<void> {
  let exited = false;
  child.once('exit', () => (exited = true));
  for (;;) {
    if (exited) throw new Error(`${url}: the launched process exited before answering`);
    try {
      const res = await fetch(url, { headers: { authorization: `Bearer ${ACME_KEY}` } });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Every process of the group (the launch runs detached, in a group of its own), read from /proc. */
function processGroup(pgid: number): StartSample['tree'] {
  const members: StartSample['tree'] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // fields after the command (which may hold spaces) start after the last ')'
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid) continue;
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${entry}/status`, 'utf8'));
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      members.push({ pid: Number(entry), command, rssBytes: Number(rss?.[1] ?? 0) * 1024 });
    } catch {
      // the process ended while being read
    }
  }
  return members;
}

async function stopGroup(child: ChildProcess): Promise<void> {
  const gone = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }, 10_000);
  await gone;
  // the group's other members (node under npm) may outlive the launcher by a moment
  for (let i = 0; i < 100 && processGroup(child.pid!).length > 0; i++)
    await new Promise((resolve) => setTimeout(resolve, 50));
  clearTimeout(timer);
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * `npm start` runs dist/ when it is current and the sources through tsx when they changed since;
 * the section measures the first, so it builds first when needed (the launcher's own test).
 */
function ensureBuilt(log: (message: string) => void): void {
  if (builtIsCurrent(pathToFileURL(`${repoRoot}/`))) return;
  log('start: dist/ is missing or older than the sources; npm run build first');
  const built = spawnSync(process.execPath, ['bin/build-dist.js'], { cwd: repoRoot, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('npm run build failed');
}

export async function runStartBench(ctx: BenchContext): Promise<SectionResult> {
  ensureBuilt(ctx.log);
  const rounds = ctx.quick ? 2 : 5;
  const ours: StartSample[] = [];
  const prism: StartSample[] = [];
  const direct: StartSample[] = [];
  const floorDirect: StartSample[] = [];
  const floorNpm: StartSample[] = [];
  for (let i = 0; i < rounds; i++) {
    ours.push(await measureStart(MOCK_LAUNCHER));
    prism.push(await measureStart(PRISM_LAUNCHER));
    // only the first answer is read from these: no idle wait
    direct.push(await measureStart(DIRECT_LAUNCHER, 0));
    floorDirect.push(await measureStart(FLOOR_DIRECT, 0));
    floorNpm.push(await measureStart(FLOOR_NPM, 0));
    ctx.log(
      `start round ${i + 1}/${rounds}: mock ${fmt.ms(ours[i].firstAnswerMs)} ${fmt.mb(ours[i].idleTreeRssBytes)}, ` +
        `prism ${fmt.ms(prism[i].firstAnswerMs)} ${fmt.mb(prism[i].idleTreeRssBytes)}; ` +
        `direct ${fmt.ms(direct[i].firstAnswerMs)}, bare server ${fmt.ms(floorDirect[i].firstAnswerMs)} ` +
        `(via npm run ${fmt.ms(floorNpm[i].firstAnswerMs)})`,
    );
  }
  const first = {
    ours: median(ours.map((s) => s.firstAnswerMs)),
    prism: median(prism.map((s) => s.firstAnswerMs)),
    direct: median(direct.map((s) => s.firstAnswerMs)),
    floorDirect: median(floorDirect.map((s) => s.firstAnswerMs)),
    floorNpm: median(floorNpm.map((s) => s.firstAnswerMs)),
  };
  const rss = {
    ours: median(ours.map((s) => s.idleTreeRssBytes)),
    prism: median(prism.map((s) => s.idleTreeRssBytes)),
  };
  const sooner = first.prism / first.ours;
  const scale = await restartScale(ctx, rounds, (dataDir) =>
    measureStart(
      { ...DIRECT_LAUNCHER, args: (port) => [...DIRECT_LAUNCHER.args(port), '--data-dir', dataDir] },
      0,
    ),
  );
  const restart = {
    small: median(scale.small.map((s) => s.firstAnswerMs)),
    large: median(scale.large.map((s) => s.firstAnswerMs)),
    smallRss: median(scale.small.map((s) => s.idleTreeRssBytes)),
    largeRss: median(scale.large.map((s) => s.idleTreeRssBytes)),
  };
  const images = (n: number) => n.toLocaleString('en-US');
  return {
    rows: [
      {
        section: 'Start',
        metric: `launch to first 200 from GET /api/v1/models (npm start; median of ${rounds})`,
        ours: fmt.ms(first.ours),
        peer: `Prism ${fmt.ms(first.prism)}`,
        ratio: `${fmt.x(sooner)} sooner (Prism time / ours)`,
        target: '>= 5x sooner than Prism',
        ok: sooner >= 5,
      },
      {
        section: 'Start',
        metric: `launch to first 200, the mock launched directly (node bin/cellseg-mock.js, as npx does; median of ${rounds})`,
        ours: fmt.ms(first.direct),
        peer: `bare node:http server ${fmt.ms(first.floorDirect)}`,
        ratio: `${fmt.x(first.direct / first.floorDirect)} (ours / bare server)`,
        target: '<= 300 ms',
        ok: first.direct <= 300,
      },
      {
        section: 'Start',
        metric: `npm's own share of a launch: the bare server through npm run, less launched directly (median of ${rounds})`,
        ours: fmt.ms(first.floorNpm - first.floorDirect),
        peer: `bare server via npm run ${fmt.ms(first.floorNpm)}`,
        ratio: `${fmt.x(first.floorNpm / first.floorDirect)} (npm run / direct)`,
        target: 'none: the floor under npm start',
        ok: null,
      },
      {
        section: 'Start',
        metric: `idle RSS of the whole launched process tree, ${IDLE_MS / 1000} s after the first answer`,
        ours: fmt.mb(rss.ours),
        peer: `Prism ${fmt.mb(rss.prism)}`,
        ratio: fmt.x(rss.ours / rss.prism),
        target: '<= 150 MB',
        ok: rss.ours <= 150 * 1024 * 1024,
      },
      {
        section: 'Start',
        metric: `first 200 after a restart on a data folder of ${images(scale.images.large)} ready images (launched directly, interleaved; median of ${rounds})`,
        ours: `${fmt.ms(restart.large)}, ${fmt.mb(restart.largeRss)} RSS`,
        peer: `${images(scale.images.small)} ready images: ${fmt.ms(restart.small)}, ${fmt.mb(restart.smallRss)} RSS`,
        ratio: fmt.x(restart.large / restart.small),
        target: '<= 2x (start-up independent of the data)',
        ok: restart.large <= 2 * restart.small,
      },
    ],
    data: { rounds, idleMs: IDLE_MS, first, rss, ours, prism, direct, floorDirect, floorNpm, restart, scale },
  };
}
