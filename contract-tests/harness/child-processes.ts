import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { REPO_ROOT } from './openapi-contract.js';

export interface Running {
  url: string;
  stop(): Promise<void>;
}

/** A free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/**
 * Starts the mock as a separate program (the suite speaks HTTP only and never imports it), with
 * short prediction delays, and answers its URL once it prints its banner.
 */
export function startMockProcess(extraArgs: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Running> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(REPO_ROOT, 'mock-server', 'main.ts'),
      '--port',
      '0',
      '--log-level',
      'warn',
      '--prediction-start-delay-ms',
      '20',
      '--prediction-run-delay-ms',
      '50',
      ...extraArgs,
    ],
    { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return waitForLine(child, /listening on (http:\/\/\S+)/, 60_000, 'the mock');
}

/** Prism 5.14.2 in front of `upstream` (proxy, judging every response) or alone (`mock`, the spec-only mock). */
export async function startPrism(mode: 'proxy' | 'mock', upstream?: string): Promise<Running> {
  const port = await freePort();
  const args = [
    'prism',
    mode,
    path.join(REPO_ROOT, 'openapi', 'openapi.yaml'),
    ...(upstream ? [upstream] : []),
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    '--errors',
    ...(mode === 'proxy' ? ['--validate-request=false'] : []),
  ];
  const child = spawn('npx', args, {
    cwd: REPO_ROOT,
    env: { ...process.env, SCARF_ANALYTICS: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stderr?.on('data', () => undefined);
  const running = await waitForLine(child, /Prism is listening on (http:\/\/\S+)/, 120_000, 'Prism');
  return { url: `http://127.0.0.1:${port}`, stop: running.stop };
}

function waitForLine(
  child: ChildProcess,
  pattern: RegExp,
  timeoutMs: number,
  what: string,
): Promise<Running> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} did not start within ${timeoutMs} ms:\n${output.slice(-2000)}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with code ${code} before it was ready:\n${output.slice(-2000)}`));
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = pattern.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.stdout?.removeAllListeners('data');
      child.stdout?.resume();
      resolve({ url: match[1].replace(/\/+$/, ''), stop: () => stopChild(child) });
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    try {
      if (child.pid && child.spawnargs[0] === 'npx') process.kill(-child.pid, 'SIGTERM');
      else child.kill('SIGTERM');
    } catch {
      child.kill('SIGTERM');
    }
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
}
