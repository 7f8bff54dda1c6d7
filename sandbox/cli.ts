/**
 * `npm run sandbox -- --instances 3`: the shared sandbox on this machine (docs/sandbox.md). Progress
 * goes to stderr, the ready text to stdout; Ctrl-C (or SIGTERM) stops every piece.
 */
import { parseSandboxCommand, SANDBOX_USAGE, SandboxUsageError } from './cli-options.js';
import { startSandbox, type Sandbox } from './launcher.js';

async function main(argv: string[]): Promise<void> {
  const command = parseSandboxCommand(argv);
  if (command.help) {
    console.log(SANDBOX_USAGE);
    return;
  }
  const starting = new AbortController();
  /** Set once every piece runs; until then a signal aborts the start instead. */
  const started: { sandbox?: Sandbox } = {};
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    const { sandbox } = started;
    if (!sandbox) {
      console.error(`\n${signal} while starting: stopping what has started...`);
      starting.abort();
      return;
    }
    if (stopping) {
      console.error(`${signal}: still stopping (nginx, then the instances, then PostgreSQL)...`);
      return;
    }
    stopping = true;
    console.error(`\n${signal}: stopping nginx, the instances and the throwaway pieces...`);
    sandbox.stop().then(
      () => {
        console.error('Stopped.');
        process.exit(0);
      },
      (err: unknown) => {
        console.error('error while stopping:', err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const sandbox = await startSandbox({
    instances: command.instances,
    port: command.port,
    seed: command.seed,
    databaseUrl: command.databaseUrl,
    dataDir: command.dataDir,
    objectStore:
      command.objectStore === 's3'
        ? {
            kind: 's3',
            bucket: command.s3Bucket,
            endpoint: command.s3Endpoint,
            region: command.s3Region,
            forcePathStyle: command.s3Endpoint !== undefined,
          }
        : { kind: 'embedded' },
    report: (line) => console.error(line),
    signal: starting.signal,
  });
  started.sandbox = sandbox;
  console.log(readyText(sandbox, command.instances));
}

function readyText(sandbox: Sandbox, instances: number): string {
  const width = Math.max(...sandbox.logs.map((l) => l.piece.length)) + 2;
  return [
    '',
    `Sandbox: ${instances} mock instance${instances === 1 ? '' : 's'} on PostgreSQL, behind nginx`,
    `  URL:          ${sandbox.url}   (API ${sandbox.url}/api/v1, dashboard ${sandbox.url}/__mock/ui)`,
    `  Admin token:  ${sandbox.adminToken}   (Authorization: Bearer <token> on /__mock)`,
    `  PostgreSQL:   ${sandbox.postgres ? `throwaway, ${sandbox.databaseUrl}` : withoutPassword(sandbox.databaseUrl)}`,
    `  Shared data:  ${sandbox.dataDir}`,
    `  Files:        ${sandbox.objectStoreDescription}`,
    '',
    'Logs:',
    ...sandbox.logs.map((l) => `  ${l.piece.padEnd(width)}${l.file}`),
    '',
    sandbox.seedBanner,
    '',
    'Ctrl-C stops every piece and removes the throwaway ones.',
  ].join('\n');
}

function withoutPassword(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof SandboxUsageError) {
    console.error(`error: ${err.message}`);
    process.exit(2);
  }
  console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
