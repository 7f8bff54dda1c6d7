/**
 * `cellseg-mock contract <record|verify> [options]`: a partner's contract, from the installed
 * package as from a checkout (the build bundles this file with the recorder and the replayer).
 *
 *   contract record --org KEY --out FILE [--base-url URL] [--since TIME] [--fields FILE] [--consumer NAME]
 *                    the organization's journal on a running mock, as a Pact V4 contract of what its client did
 *   contract verify FILE [--base-url URL] [--key KEY] [--profile mock|staging|production] [--report-dir DIR]
 *                    replays the contract against a running target; reports partner.{md,html,json} in DIR
 *                    (default ./reports); exit 1 when an interaction failed
 *
 * verify's defaults: --base-url http://127.0.0.1:8000 with profile mock and the seeded key of the
 * first organization (a mock on its embedded defaults); with another --base-url, profile staging,
 * and the key from --key or CONTRACT_API_KEY.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { keyProblem } from '../harness/preflight.js';
import { mockKeys, targetFromEnv, type Profile } from '../harness/target.js';
import { recordCommand } from './record-cli.js';
import { verifyPartnerContract } from './verify.js';

const CONTRACT_USAGE = `Usage: cellseg-mock contract <record|verify> [options]

  contract record --org KEY --out FILE [--base-url URL] [--since TIME] [--fields FILE] [--consumer NAME]
      the organization's journal on a running mock, as a Pact V4 contract of what its client did
  contract verify FILE [--base-url URL] [--key KEY] [--profile mock|staging|production] [--report-dir DIR]
      replays the contract against a running target; reports partner.{md,html,json} in DIR (default
      ./reports); exit 1 when an interaction failed. Without --base-url: the mock on
      http://127.0.0.1:8000, its seeded key, profile mock.
`;

const LOCAL_MOCK = 'http://127.0.0.1:8000';

/** Runs `contract ...`; answers the exit code (2 for a command line it cannot use). */
export async function contractCommand(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === 'record') return recordCommand(argv);
  if (verb === 'verify') {
    try {
      return await verify(rest);
    } catch (err) {
      console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
      return (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? 2 : 1;
    }
  }
  if (verb === undefined || verb === 'help' || verb === '--help' || verb === '-h') {
    console.log(CONTRACT_USAGE);
    return verb === undefined ? 2 : 0;
  }
  console.error(`cellseg-mock contract: unknown command '${verb}' (record or verify)`);
  return 2;
}

async function verify(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'base-url': { type: 'string' },
      key: { type: 'string' },
      profile: { type: 'string' },
      'report-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(CONTRACT_USAGE);
    return 0;
  }
  if (positionals.length !== 1) {
    console.error(`error: expected 'contract verify <contract file>'\n\n${CONTRACT_USAGE}`);
    return 2;
  }
  const baseUrl = values['base-url'] ?? LOCAL_MOCK;
  const profile = (values.profile ?? (values['base-url'] ? 'staging' : 'mock')) as Profile;
  const key =
    values.key ?? process.env.CONTRACT_API_KEY ?? (profile === 'mock' ? mockKeys().main : undefined);
  if (!key) throw new Error('--key (or CONTRACT_API_KEY) is required for a target other than the mock');
  Object.assign(process.env, {
    CONTRACT_BASE_URL: baseUrl,
    CONTRACT_API_KEY: key,
    CONTRACT_PROFILE: profile,
    CONTRACT_REPORT_DIR: path.resolve(values['report-dir'] ?? process.env.CONTRACT_REPORT_DIR ?? 'reports'),
  });
  const problem = await keyProblem(
    baseUrl,
    { main: key },
    { main: '--key', other: '', tiny: '', second: '' },
  );
  if (problem) {
    console.error(`error: ${problem}`);
    return 1;
  }
  return verifyPartnerContract(positionals[0], targetFromEnv(process.env));
}
