/**
 * Child processes of the benchmark: the mock (bench/support/mock-child.ts), the bare express peer
 * and Prism, each started, waited for and stopped by pid; plus the memory probes read from
 * /proc/<pid>/status (VmRSS now, VmHWM the peak since the last reset through clear_refs).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const MB = 1024 * 1024;

export interface Child {
  url: string;
  pid: number;
  proc: ChildProcess;
  /** process.memoryUsage() of the child (mock child only), after a full GC when asked. */
  mem(gc?: boolean): Promise<NodeJS.MemoryUsage>;
  stop(): Promise<void>;
}

/** Starts a TypeScript child that prints `{"url": ...}` as its first stdout line. */
export async function startTsChild(
  script: string,
  args: string[] = [],
  opts: { nodeArgs?: string[]; env?: NodeJS.ProcessEnv } = {},
): Promise<Child> {
  const proc = spawn(
    process.execPath,
    ['--expose-gc', ...(opts.nodeArgs ?? []), '--import', 'tsx', path.join(repoRoot, script), ...args],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit', 'ipc'], env: { ...process.env, ...opts.env } },
  );
  const first = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: proc.stdout! });
    lines.once('line', resolve);
    proc.once('exit', (code) => reject(new Error(`${script} exited with ${code} before listening`)));
  });
  const { url } = JSON.parse(first) as { url: string };
  let seq = 0;
  const pending = new Map<number, (v: unknown) => void>();
  proc.on('message', (m) => {
    const msg = m as { id: number };
    pending.get(msg.id)?.(msg);
    pending.delete(msg.id);
  });
  const ask = (cmd: Record<string, unknown>) =>
    new Promise<unknown>((resolve) => {
      const id = ++seq;
      pending.set(id, resolve);
      proc.send({ ...cmd, id });
    });
  return {
    url,
    pid: proc.pid!,
    proc,
    async mem(gc = false) {
      return ((await ask({ cmd: 'mem', gc })) as { mem: NodeJS.MemoryUsage }).mem;
    },
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      await Promise.race([ask({ cmd: 'exit' }), exited]);
      await Promise.race([exited, sleep(15_000)]);
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    },
  };
}

/** Starts `prism mock` on a free port; answers its base URL. */
export async function startPrism(port: number): Promise<{ url: string; stop(): Promise<void> }> {
  const bin = path.join(repoRoot, 'node_modules', '.bin', 'prism');
  const proc = spawn(bin, ['mock', 'openapi/openapi.yaml', '-p', String(port), '-h', '127.0.0.1'], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SCARF_ANALYTICS: 'false', NO_COLOR: '1' },
    detached: true,
  });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism did not start:\n${log.slice(-2000)}`)), 60_000);
    const onData = (d: Buffer) => {
      log += d.toString();
      if (/Prism is listening/.test(log)) {
        clearTimeout(timer);
        resolve();
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`prism exited with ${code}:\n${log.slice(-2000)}`)));
  });
  // Prism logs every request; keep draining so its pipes never block it.
  proc.stdout!.resume();
  proc.stderr!.resume();
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      const group = (signal: NodeJS.Signals) => {
        try {
          process.kill(-proc.pid!, signal); // its own process group: the CLI and the server it forks
        } catch {
          /* already gone */
        }
      };
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      if (proc.exitCode === null && proc.signalCode === null) {
        group('SIGTERM');
        await Promise.race([exited, sleep(5000)]);
      }
      group('SIGKILL'); // the forked server, if it outlived the CLI
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export function procStatus(pid: number): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/**
 * Peak RSS of a process over a phase: resets VmHWM (clear_refs 5) at the start and reads it at the
 * end, with a 20 ms VmRSS poll as a fallback where clear_refs is not allowed.
 */
export function rssWatch(pid: number): { stop(): { start: number; peak: number; end: number } } {
  let hwmReset = true;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    hwmReset = false;
  }
  const start = procStatus(pid).rss;
  let polled = start;
  const timer = setInterval(() => {
    try {
      polled = Math.max(polled, procStatus(pid).rss);
    } catch {
      /* exited */
    }
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      const now = procStatus(pid);
      const peak = Math.max(polled, now.rss, hwmReset ? now.hwm : 0);
      return { start, peak, end: now.rss };
    },
  };
}

export async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}
