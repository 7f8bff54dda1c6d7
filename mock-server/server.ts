import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pino, type Logger } from 'pino';
import { loadConfig, resolveUrls, type MockConfig } from './config.js';
import { createApp } from './http/app.js';
import { createServices, type ServiceOverrides, type Services } from './services.js';

export interface RunningMock {
  url: string;
  config: MockConfig;
  services: Services;
  server: http.Server;
  close(): Promise<void>;
}

/**
 * Starts the mock: listens first (so port 0 resolves to a real port and every URL the mock hands
 * out names it), then wires services and routes. Used by `npm start`, the tests and the benchmarks.
 */
export async function startMockServer(
  partial: Partial<MockConfig> = {},
  options: ServiceOverrides & { logger?: Logger } = {},
): Promise<RunningMock> {
  const base = loadConfig([], {}, partial);
  const temporaryData = !base.dataDir;
  const dataDir = base.dataDir || (await mkdtemp(path.join(os.tmpdir(), 'cellseg-mock-')));
  const server = http.createServer();
  server.requestTimeout = 0; // multi-GB uploads take longer than Node's 5-minute default
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(base.port, base.host, () => resolve());
  });
  const config = resolveUrls({ ...base, dataDir }, (server.address() as AddressInfo).port);
  const logger = options.logger ?? pino({ level: config.logLevel });
  let services: Services;
  let app: Awaited<ReturnType<typeof createApp>>;
  try {
    services = await createServices(config, { persistent: !temporaryData, ...options });
    app = await createApp(services, logger);
  } catch (err) {
    // a bad setting must not leave a port held or a temporary folder behind
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (temporaryData) await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  server.on('request', app);

  let closing: Promise<void> | undefined;
  return {
    url: config.publicBaseUrl,
    config,
    services,
    server,
    close() {
      closing ??= (async () => {
        // server.close() waits for every connection to end; a keep-alive connection whose request
        // finishes after close() began would otherwise idle until keepAliveTimeout (5 s) runs out.
        server.prependListener('request', (_req, res) => res.setHeader('Connection', 'close'));
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
