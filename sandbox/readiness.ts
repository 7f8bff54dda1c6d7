import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { describeExit, type LoggedProcess } from './logged-process.js';

/** Longest a piece may take to answer its first health check (a cold start through tsx included). */
const READY_WITHIN_MS = 120_000;
const POLL_EVERY_MS = 100;

/**
 * Resolves once `url` answers 200; rejects, naming the piece and its log, as soon as the process
 * exits or the wait runs out. Polling is the only way to know: an instance is ready when it answers
 * through HTTP, its migrations and seed done, not when its port opens.
 */
export async function waitUntilAnswering(url: string, piece: LoggedProcess): Promise<void> {
  const deadline = Date.now() + READY_WITHIN_MS;
  let exited = false;
  void piece.exited.then(() => (exited = true));
  for (;;) {
    if (exited || piece.hasExited()) {
      const exit = await piece.exited;
      throw new Error(
        `${piece.name} ${describeExit(exit)} before it was ready; its log (${piece.logFile}) ends:\n${await logTail(piece.logFile)}`,
      );
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${piece.name} did not answer ${url} within ${READY_WITHIN_MS / 1000} s; its log: ${piece.logFile}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
  }
}

/**
 * Resolves once the piece's log holds `text`. An instance answers its health route before `main`
 * prints its banner (read from the database): it is started only once the banner is out. A
 * restarted instance appends to the same log: only what follows `fromByte` counts.
 */
export async function waitForLogLine(piece: LoggedProcess, text: string, fromByte: number): Promise<void> {
  const deadline = Date.now() + READY_WITHIN_MS;
  const logged = async () =>
    (await readFile(piece.logFile).catch(() => Buffer.alloc(0))).subarray(fromByte).toString('utf8');
  while (!(await logged()).includes(text)) {
    if (piece.hasExited()) {
      const exit = await piece.exited;
      throw new Error(
        `${piece.name} ${describeExit(exit)} while starting; its log (${piece.logFile}) ends:\n${await logTail(piece.logFile)}`,
      );
    }
    if (Date.now() > deadline)
      throw new Error(`${piece.name} never logged '${text}'; its log: ${piece.logFile}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
  }
}

/** The last lines of a log, quoted in the error: the sandbox's folder, log included, goes with stop(). */
async function logTail(file: string): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .trimEnd()
    .split('\n')
    .slice(-12)
    .map((line) => `  | ${line}`)
    .join('\n');
}

/** A TCP port free on 127.0.0.1 right now (the kernel's pick). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
