/**
 * `cellseg-mock contract record --org <key> --out partner.json [options]`: the organization's
 * journal on a running mock, as a Pact V4 contract of what its client did (docs/partner-contracts.md).
 *
 *   --org KEY          the organization's API key (its own journal is read with it)
 *   --out FILE         where the contract goes
 *   --base-url URL     the mock (default http://localhost:8000)
 *   --since TIME       only the requests answered at or after this ISO date-time (the start of the client's run)
 *   --fields FILE      narrowing: JSON of operation id -> the JSON paths of its answers the client relies on
 *   --consumer NAME    the consumer's name in the contract (default: partner)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { recordFromJournal } from './record-journal.js';

/** Said here, not read from this file's comment: the package runs this code bundled into another file. */
function usage(): string {
  return `cellseg-mock contract record --org <key> --out partner.json [options]

  --org KEY          the organization's API key (its own journal is read with it)
  --out FILE         where the contract goes
  --base-url URL     the mock (default http://localhost:8000)
  --since TIME       only the requests answered at or after this ISO date-time (the start of the client's run)
  --fields FILE      narrowing: JSON of operation id -> the JSON paths of its answers the client relies on
  --consumer NAME    the consumer's name in the contract (default: partner)
`;
}

function readFields(file: string): Record<string, string[]> {
  const fields = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  const valid =
    fields &&
    typeof fields === 'object' &&
    !Array.isArray(fields) &&
    Object.values(fields).every((paths) => Array.isArray(paths) && paths.every((p) => typeof p === 'string'));
  if (!valid) throw new Error(`${file}: expected {"<operation id>": ["$.json.path", ...], ...}`);
  return fields as Record<string, string[]>;
}

/** Runs the command; answers its exit code (2 for a command line it cannot use). */
export async function recordCommand(argv: string[]): Promise<number> {
  try {
    return await record(argv);
  } catch (err) {
    console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
    return (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? 2 : 1;
  }
}

async function record(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      org: { type: 'string' },
      out: { type: 'string' },
      'base-url': { type: 'string' },
      fields: { type: 'string' },
      since: { type: 'string' },
      consumer: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(usage());
    return 0;
  }
  if (values.since !== undefined && Number.isNaN(Date.parse(values.since)))
    throw new Error(`--since ${values.since} is not an ISO date-time`);
  if (positionals[0] !== 'record' || positionals.length > 1 || !values.org || !values.out) {
    console.error(`error: expected 'contract record --org <key> --out <file>'\n\n${usage()}`);
    return 2;
  }
  const { contract, entries } = await recordFromJournal(
    values['base-url'] ?? 'http://localhost:8000',
    values.org,
    {
      consumer: values.consumer ?? 'partner',
      fields: values.fields ? readFields(values.fields) : undefined,
      since: values.since,
    },
  );
  writeFileSync(values.out, `${JSON.stringify(contract, null, 2)}\n`);
  console.log(
    `Recorded ${contract.interactions.length} interaction(s) from ${entries} journal entries into ${values.out}`,
  );
  return 0;
}
