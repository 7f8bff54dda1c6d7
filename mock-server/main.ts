import { rmSync } from 'node:fs';
import { ConfigError, helpText, loadConfig } from './config.js';
import { startMockServer } from './server.js';
import { DataFolderError } from './stores/database/open-database.js';

/** `npm start -- [options]`: the mock on its embedded defaults, with the seeded keys printed. */
async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(helpText());
    return;
  }
  const config = loadConfig(argv.filter((a) => a !== 'start'));
  const mock = await startMockServer(config);
  console.log(banner(mock.url, mock.services));
  const temporaryData = !config.dataDir;
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second Ctrl-C must not wait behind a multi-GB upload or a long segmentation.
      console.error(`${signal} while stopping: exiting now without waiting.`);
      if (temporaryData) rmSync(mock.config.dataDir, { recursive: true, force: true });
      process.exit(1);
    }
    stopping = true;
    console.error(
      `\n${signal}: finishing in-flight requests and stopping workers (${signal} again to force)...`,
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
  process.on('SIGINT', (signal) => void stop(signal));
  process.on('SIGTERM', (signal) => void stop(signal));
}

function banner(url: string, services: Awaited<ReturnType<typeof startMockServer>>['services']): string {
  const lines = [
    `Cell-segmentation mock (interface v1.1.0) listening on ${url}`,
    `  API:     ${url}/api/v1`,
    `  Storage: ${services.config.storageUrl}`,
    `  Data:    ${services.config.dataDir}`,
    '',
  ];
  const base = [...services.state.models.listFor({ id: '' } as never)];
  lines.push('Base models (every organization):');
  for (const m of base) lines.push(`  ${m.id}  ${m.name}`);
  for (const org of services.state.organizations.all()) {
    lines.push(
      '',
      `Organization "${org.name}" (${org.id}), plan ${org.plan.name}: ${org.plan.storageCapImages} images, ${org.plan.monthlyAnalysisCap} analyses/month`,
    );
    for (const key of org.apiKeys) lines.push(`  API key:      ${key}`);
    for (const m of services.state.models.listFor(org).filter((m) => m.scope === 'custom'))
      lines.push(`  Custom model: ${m.id}  ${m.name}`);
  }
  lines.push(
    '',
    `Try: curl -H "Authorization: Bearer ${services.state.organizations.all()[0]?.apiKeys[0] ?? '<key>'}" ${url}/api/v1/models`,
  );
  return lines.join('\n');
}

main(process.argv.slice(2)).catch((err) => {
  const oneLine = err instanceof ConfigError || err instanceof DataFolderError;
  console.error(oneLine ? `error: ${(err as Error).message}` : err);
  process.exit(err instanceof ConfigError ? 2 : 1);
});
