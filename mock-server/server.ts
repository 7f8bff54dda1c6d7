import { mkdtemp, rm } from 'node:fs/promises';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pino, type Logger } from 'pino';
import { ConfigError, loadConfig, resolveUrls, type MockConfig } from './config.js';
import { secureByDefault } from './exposure.js';
import { answerClientErrors } from './http/client-errors.js';
import { nodeHttp } from './http/node-http.js';
import { answerNotReady, waitUntilReady } from './http/not-ready.js';
import { handledInLoopTurns } from './http/loop-turn-batches.js';
import type { ServiceOverrides, Services } from './services.js';
import { parseCorsOrigins } from './http/cors.js';

const { createServer } = nodeHttp;

export type RunningMock = Awaited<ReturnType<typeof startMockServer>>;

/** The port could not be opened (busy, or not allowed): one line for the user, not a stack trace. */
export class ListenError extends Error {}

// Node's defaults for both; set here so that no timeout of the server is left unbounded.
const HEADERS_TIMEOUT_MS = 60_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/**
 * Starts the mock: listens first (so port 0 resolves to a real port and every URL the mock hands
 * out names it), then loads and wires services and routes; a request that arrives meanwhile waits
 * for them (503 with Retry-After only if wiring failed), then every request goes to the app. The
 * wiring modules are imported only after the port is open, so the port opens as soon as Node runs.
 * Used by `npm start`, startMock(), the tests and the benchmarks.
 */
export async function startMockServer(
  partial: Partial<MockConfig> = {},
  options: ServiceOverrides & { logger?: Logger } = {},
) {
  // Off loopback a token is generated here, so startMock() off loopback is as guarded as the command.
  const base = secureByDefault(loadConfig([], {}, partial)).config;
  if (!(base.requestTimeoutMs > 0)) throw new ConfigError('--request-timeout-ms must be more than 0');
  parseCorsOrigins(base.corsOrigins); // a bad origin stops the start before any process is spawned
  const temporaryData = !base.dataDir;
  const dataDir = base.dataDir || (await mkdtemp(path.join(os.tmpdir(), 'cellseg-mock-')));
  let ready!: (app: http.RequestListener) => void;
  const readiness = new Promise<http.RequestListener>((resolve) => (ready = resolve));
  let handler: http.RequestListener = waitUntilReady(readiness);
  const server = createServer(
    // Node checks request timeouts on this period (30 s by default): a short timeout is checked sooner.
    { connectionsCheckingInterval: Math.min(30_000, Math.max(100, base.requestTimeoutMs / 4)) },
    (req, res) => handler(req, res),
  );
  // Finite, so no request holds a connection forever; long enough for a multi-GB upload.
  server.requestTimeout = base.requestTimeoutMs;
  server.headersTimeout = Math.min(HEADERS_TIMEOUT_MS, base.requestTimeoutMs);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  answerClientErrors(server, base.requestTimeoutMs);
  try {
    await listen(server, base.port, base.host);
  } catch (err) {
    if (temporaryData) await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  const config = resolveUrls({ ...base, dataDir }, (server.address() as AddressInfo).port);
  // pino's own base fields (pid, hostname) kept beside the instance's name
  const logBase = { pid: process.pid, hostname: os.hostname(), instance: config.instanceId };
  const logger = options.logger ?? pino({ level: config.logLevel, base: logBase });
  let services: Services;
  const stopping = new AbortController();
  let app: http.RequestListener;
  try {
    // One import after the other: jest's ES-module loader (the jest example of examples/, run
    // against the packed package) fails to link a chunk that imports running at once share
    // ("request for 'node:module' is from a module not been linked").
    const { createServices } = await import('./services.js');
    const { createHttpApp } = await import('./http-wiring.js');
    services = await createServices(config, {
      persistent: !temporaryData,
      onDatabaseWait: (line) => logger.warn(line),
      onSweepFailed: (err) =>
        logger.error({ err }, 'the start-up sweep stopped (it runs again at the next start)'),
      ...options,
    });
    app = createHttpApp(services, logger, stopping.signal);
  } catch (err) {
    // Requests that waited are answered (503), and a bad setting must not leave a port held or a
    // temporary folder behind.
    ready(answerNotReady);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (temporaryData) await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  handler = handledInLoopTurns(app, (err) => logger.error({ err }, 'the request function threw'));
  ready(app);

  let closing: Promise<void> | undefined;
  return {
    url: config.publicBaseUrl,
    config,
    services,
    server,
    close() {
      closing ??= (async () => {
        // a refused body still being read and dropped is answered now, not after its 10 s
        stopping.abort();
        // server.close() waits for every connection to end; a keep-alive connection whose request
        // finishes after close() began would otherwise idle until keepAliveTimeout (5 s) runs out.
        const serving = handler;
        handler = (req, res) => {
          res.setHeader('Connection', 'close');
          serving(req, res);
        };
        const sweep = setInterval(() => server.closeIdleConnections(), 100);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        clearInterval(sweep);
        await services.close();
        if (temporaryData) await rm(dataDir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      const where = `${host}:${port}`;
      if (err.code === 'EADDRINUSE')
        reject(
          new ListenError(
            `port ${port} is already in use on ${host}: stop what holds it, or pick another with --port <n> (or PORT=<n>; 0 picks a free one)`,
          ),
        );
      else if (err.code === 'EACCES')
        reject(new ListenError(`not allowed to listen on ${where}: pick a port above 1023 with --port <n>`));
      else if (err.code === 'EADDRNOTAVAIL')
        reject(
          new ListenError(`cannot listen on ${where}: ${host} is not an address of this machine (--host)`),
        );
      else if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN')
        reject(new ListenError(`cannot listen on ${where}: no address found for the name ${host} (--host)`));
      else reject(err);
    });
    server.listen(port, host, () => resolve());
  });
}
