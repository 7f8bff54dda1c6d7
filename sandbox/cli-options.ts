import { parseArgs } from 'node:util';

export interface SandboxCommand {
  help: boolean;
  instances: number;
  port: number;
  seed: boolean;
  databaseUrl?: string;
  dataDir?: string;
  objectStore: 'embedded' | 's3';
  s3Bucket?: string;
  s3Endpoint?: string;
  s3Region?: string;
}

export class SandboxUsageError extends Error {}

export const SANDBOX_USAGE = `Usage: npm run sandbox -- [options]

Starts a throwaway PostgreSQL, N mock instances on one shared data folder, and nginx in front of
them; prints the one URL, the admin token, the seeded keys and where each piece logs. Ctrl-C stops
them all and removes the throwaway pieces. Needs Debian's nginx and postgresql packages.

Options:
  --instances N        mock instances behind the load balancer, 1 to 32 [3]
  --port P             port of the one URL on 127.0.0.1 [a free one]
  --seed on|off        load the seed's well-known API keys, as npm start does [on]
  --database-url URL   join this PostgreSQL (postgres://...) instead of starting a throwaway one
  --data-dir DIR       the folder the instances share, kept afterwards [a temporary one, removed]
  --object-store embedded|s3
                       where uploads and files go: the shared folder, or S3 [embedded]
  --s3-bucket B        with --object-store s3: this bucket (credentials: AWS_ACCESS_KEY_ID, ...)
                       [a throwaway Ceph RADOS Gateway, started and removed with the sandbox]
  --s3-endpoint URL    with --s3-bucket: an S3-compatible endpoint (path-style URLs) [AWS]
  --s3-region R        with --s3-bucket: the bucket's region [us-east-1]
  --help               this text`;

/** The command line of `npm run sandbox`, checked whole before anything starts. */
export function parseSandboxCommand(argv: string[]): SandboxCommand {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        instances: { type: 'string' },
        port: { type: 'string' },
        seed: { type: 'string' },
        'database-url': { type: 'string' },
        'data-dir': { type: 'string' },
        'object-store': { type: 'string' },
        's3-bucket': { type: 'string' },
        's3-endpoint': { type: 'string' },
        's3-region': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new SandboxUsageError(`${(err as Error).message.split('\n')[0]} (see --help)`);
  }
  const text = (name: string) => values[name] as string | undefined;
  const databaseUrl = text('database-url');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//i.test(databaseUrl))
    throw new SandboxUsageError('--database-url must start with postgres:// or postgresql://');
  const seed = text('seed') ?? 'on';
  if (seed !== 'on' && seed !== 'off') throw new SandboxUsageError(`--seed takes on or off, not '${seed}'`);
  const dataDir = text('data-dir');
  if (dataDir === '') throw new SandboxUsageError('--data-dir needs a folder');
  const objectStore = text('object-store') ?? 'embedded';
  if (objectStore !== 'embedded' && objectStore !== 's3')
    throw new SandboxUsageError(`--object-store takes embedded or s3, not '${objectStore}'`);
  const s3 = { s3Bucket: text('s3-bucket'), s3Endpoint: text('s3-endpoint'), s3Region: text('s3-region') };
  const s3Flag = ['s3-bucket', 's3-endpoint', 's3-region'].find((name) => text(name) !== undefined);
  if (s3Flag && objectStore !== 's3') throw new SandboxUsageError(`--${s3Flag} needs --object-store s3`);
  if ((s3.s3Endpoint !== undefined || s3.s3Region !== undefined) && s3.s3Bucket === undefined)
    throw new SandboxUsageError(
      '--s3-endpoint and --s3-region name the place of --s3-bucket: give the bucket too (without one, a throwaway RGW is started)',
    );
  if (s3.s3Bucket === '') throw new SandboxUsageError('--s3-bucket needs a bucket name');
  return {
    help: values.help === true,
    objectStore,
    ...(s3.s3Bucket !== undefined && { s3Bucket: s3.s3Bucket }),
    ...(s3.s3Endpoint !== undefined && { s3Endpoint: s3.s3Endpoint }),
    ...(s3.s3Region !== undefined && { s3Region: s3.s3Region }),
    instances: whole('--instances', text('instances') ?? '3', 1, 32),
    port: whole('--port', text('port') ?? '0', 0, 65_535),
    seed: seed === 'on',
    ...(databaseUrl !== undefined && { databaseUrl }),
    ...(dataDir !== undefined && { dataDir }),
  };
}

function whole(flag: string, raw: string, min: number, max: number): number {
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= max))
    throw new SandboxUsageError(`${flag} must be a whole number from ${min} to ${max}, got '${raw}'`);
  return value;
}
