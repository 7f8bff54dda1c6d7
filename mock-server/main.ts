import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { ConfigError, helpText, loadConfig } from './config.js';
import { DASHBOARD_PATH } from './control/ui/render-dashboard-page.js';
import { ListenError, startMockServer } from './server.js';
import type { Services } from './services.js';
import { DataFolderError } from './stores/sqlite/database/open-database.js';
import { DatabaseStartError } from './stores/postgres/database-wait.js';
import { SnapshotRefused } from './domain/snapshots/snapshot-format.js';
import { exposureLines } from './exposure.js';

/** `npm start -- [options]`: the mock on its embedded defaults, with the seeded keys printed. */
async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(helpText());
    return;
  }
  const config = loadConfig(argv.filter((a) => a !== 'start'));
  const mock = await startMockServer(config); // generates the admin token off loopback (exposure.ts)
  const generatedToken = !config.adminToken && mock.config.adminToken !== '';
  const { address, family, port } = mock.server.address() as AddressInfo;
  const bound = `http://${family === 'IPv6' ? `[${address}]` : address}:${port}`;
  console.log(await banner(mock.url, bound, mock.services, generatedToken));
  const temporaryData = !config.dataDir;
  let stopping = false;
  const stop = async (reason: string, { forceOnRepeat }: { forceOnRepeat: boolean }) => {
    if (stopping) {
      if (!forceOnRepeat) return;
      // A second Ctrl-C must not wait behind a multi-GB upload or a long segmentation.
      console.error(`${reason} while stopping: exiting now without waiting.`);
      if (temporaryData) rmSync(mock.config.dataDir, { recursive: true, force: true });
      process.exit(1);
    }
    stopping = true;
    console.error(
      `\n${reason}: finishing in-flight requests and stopping workers (Ctrl-C again to force)...`,
    );
    try {
      await mock.close();
    } catch (err) {
      console.error('error while stopping:', err);
      process.exit(1);
    }
    console.error('Stopped.');
    process.exit(0);
  };
  process.on('SIGINT', (signal) => void stop(signal, { forceOnRepeat: true }));
  process.on('SIGTERM', (signal) => void stop(signal, { forceOnRepeat: true }));
  stopWithLauncher(
    () => void stop('the npm process that started the mock has exited', { forceOnRepeat: false }),
  );
}

/**
 * `npm start` and `npx` run the mock under `sh -c`, and a SIGTERM sent to npm alone (a CI runner
 * ending its step, a supervisor) ends npm and that shell but never reaches the mock, which would
 * keep running and holding its port. When npm launched it, the mock stops, gracefully, as soon as
 * the process that started it is gone. Anything else (the bin run directly, a container's PID 1)
 * is left alone: a daemonizing parent may exit on purpose.
 */
function stopWithLauncher(stop: () => void): void {
  if (!process.env.npm_lifecycle_event) return;
  const launcher = process.ppid;
  setInterval(() => {
    if (process.ppid !== launcher) stop();
  }, 250).unref();
}

/** `url` is where clients reach it (--public-base-url), `bound` the address it listens on. */
async function banner(
  url: string,
  bound: string,
  services: Services,
  generatedToken: boolean,
): Promise<string> {
  const { config } = services;
  const lines = [
    `Cell-segmentation mock (interface v1.1.0) listening on ${url}`,
    ...(bound === url ? [] : [`  Bound to:  ${bound} (the address above is --public-base-url)`]),
    `  API:       ${url}/api/v1`,
    `  Dashboard: ${url}${DASHBOARD_PATH}`,
    `  Reference: ${url}/docs`,
    `  Storage:   ${
      config.objectStore === 's3'
        ? `S3 bucket ${config.s3Bucket} at ${config.s3Endpoint || 'AWS'}, which signs the part URLs`
        : config.storageUrl
    }`,
    `  Data:      ${config.dataDir}`,
    ...exposureLines(config, generatedToken),
    '',
  ];
  // Listening already: a state database that does not answer now must not end the instance.
  const seededKeys = await organizationLines(services, lines).catch((error: unknown) => {
    lines.push(`(organizations not listed: ${error instanceof Error ? error.message : String(error)})`);
    return new Map<string, string[]>();
  });
  lines.push(
    '',
    `Try: curl -H "Authorization: Bearer ${[...seededKeys.values()].flat()[0] ?? '<key>'}" ${url}/api/v1/models`,
  );
  return lines.join('\n');
}

/** Base models, and each organization with its seeded keys and custom models; answers the seeded keys. */
async function organizationLines(services: Services, lines: string[]): Promise<Map<string, string[]>> {
  const base = await services.state.models.listFor({ id: '' } as never);
  lines.push('Base models (every organization):');
  for (const m of base) lines.push(`  ${m.id}  ${m.name}`);
  const seededKeys = await services.seededKeys();
  for (const org of await services.state.organizations.all()) {
    lines.push(
      '',
      `Organization "${org.name}" (${org.id}), plan ${org.plan.name}: ${org.plan.storageCapImages} images, ${org.plan.monthlyAnalysisCap} analyses/month`,
    );
    // The seed's well-known keys; a key created later was shown once, to whoever created it.
    for (const key of seededKeys.get(org.id) ?? []) lines.push(`  API key:      ${key}`);
    for (const m of (await services.state.models.listFor(org)).filter((m) => m.scope === 'custom'))
      lines.push(`  Custom model: ${m.id}  ${m.name}`);
  }
  return seededKeys;
}

main(process.argv.slice(2)).catch((err) => {
  if (err instanceof ConfigError) {
    console.error(`error: ${err.message}`);
    process.exit(2);
  }
  // A busy port, a data folder or a database it cannot use, a snapshot refused: one line each, saying what to do.
  const oneLine =
    err instanceof ListenError ||
    err instanceof DataFolderError ||
    err instanceof DatabaseStartError ||
    err instanceof SnapshotRefused;
  console.error(oneLine ? `error: ${(err as Error).message}` : err);
  process.exit(1);
});
