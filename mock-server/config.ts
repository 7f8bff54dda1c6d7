import { parseArgs } from 'node:util';
import { OPTIONS, type MockConfig, type OptionSpec } from './config-options.js';

export type { MockConfig } from './config-options.js';

export class ConfigError extends Error {}

/** Fills the URL settings left empty from the address the server actually listens on. */
export function resolveUrls(config: MockConfig, boundPort: number): MockConfig {
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const publicBaseUrl = stripSlash(config.publicBaseUrl || `http://${host}:${boundPort}`);
  return {
    ...config,
    port: boundPort,
    publicBaseUrl,
    storageUrl: stripSlash(config.storageUrl || `${publicBaseUrl}/storage`),
    shareBaseUrl: stripSlash(config.shareBaseUrl || publicBaseUrl),
  };
}

function stripSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** Flags win over environment variables, which win over defaults. */
export function loadConfig(
  argv: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<MockConfig> = {},
): MockConfig {
  const flags = parseFlags(argv);
  const config: Record<string, string | number> = {};
  for (const option of OPTIONS)
    config[option.key] = coerce(option, overrides[option.key] ?? flags.get(option.flag) ?? env[option.env]);
  return checkInstanceSettings(config as unknown as MockConfig);
}

/** Same characters as a request id (http/request-log.ts): safe in a log line and in a header. */
const INSTANCE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The settings that say where this instance stands among others and the URLs it hands out (a
 * bad one would fail at start with a stack trace, or in every answer naming it). A database URL is checked for
 * its scheme only, and only the scheme is repeated in the error: the rest may hold a password.
 */
function checkInstanceSettings(config: MockConfig): MockConfig {
  if (config.databaseUrl === '') delete config.databaseUrl;
  else if (config.databaseUrl !== undefined && !/^postgres(ql)?:\/\//i.test(config.databaseUrl)) {
    const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(config.databaseUrl)?.[0];
    throw new ConfigError(
      `--database-url / DATABASE_URL must start with postgres:// or postgresql://, got ${scheme ? `a ${scheme} URL` : 'no URL'}`,
    );
  }
  for (const key of ['publicBaseUrl', 'storageUrl', 'shareBaseUrl'] as const) {
    const url = config[key];
    if (url !== '' && !(/^https?:\/\//i.test(url) && URL.canParse(url))) {
      const { flag, env } = OPTIONS.find((o) => o.key === key) as OptionSpec;
      throw new ConfigError(`${flag} / ${env} must be an http:// or https:// URL, got '${url}'`);
    }
  }
  if (!config.host.trim())
    throw new ConfigError(`--host / HOST must name an interface, got '${config.host}'`);
  // A header carries it: a space or a character past ASCII would never match what a client sends.
  if (!/^[\x21-\x7e]*$/.test(config.adminToken))
    throw new ConfigError('--admin-token / ADMIN_TOKEN must be printable ASCII with no space');
  if (!INSTANCE_ID.test(config.instanceId)) {
    throw new ConfigError(
      `--instance-id / INSTANCE_ID must be 1 to 128 letters, digits or . _ : -, got '${config.instanceId}'`,
    );
  }
  return config;
}

/**
 * The command line through Node's own parser (strict: an unknown option or a missing value is an
 * error), worded as one line that names the option. Every option takes a value; numbers are
 * checked by coerce() so that a flag and its environment variable fail with the same message.
 */
function parseFlags(argv: string[]): Map<string, string> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: Object.fromEntries(OPTIONS.map((o) => [o.flag.slice(2), { type: 'string' as const }])),
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new ConfigError(commandLineError(err as Error & { code?: string }));
  }
  const flags = new Map<string, string>();
  for (const [name, value] of Object.entries(values))
    if (typeof value === 'string') flags.set(`--${name}`, value);
  return flags;
}

function commandLineError(err: Error & { code?: string }): string {
  const named = /'(-[^' ]*)/.exec(err.message)?.[1] ?? '';
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option '${named}' (see --help)`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return `option ${named} needs a value`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument '${/'([^']*)'/.exec(err.message)?.[1] ?? ''}': every option is --name value (see --help)`;
    default:
      return err.message;
  }
}

/** A flag and its environment variable fail with the same message, which names both. */
function coerce(option: OptionSpec, raw: string | number | undefined = option.default): string | number {
  const named = `${option.flag} / ${option.env}`;
  if (typeof option.default === 'string') {
    const value = String(raw);
    if (option.choices && !option.choices.includes(value))
      throw new ConfigError(`${named} must be one of ${option.choices.join(', ')}, got '${value}'`);
    return value;
  }
  // Number('') is 0: an empty PORT= must not listen on a random port, nor a limit become none.
  const value = String(raw).trim() === '' ? NaN : Number(raw);
  if (!Number.isFinite(value) || value < 0)
    throw new ConfigError(`${named} must be a non-negative number, got '${raw}'`);
  const least = option.least ?? 0;
  if (option.whole && !(Number.isSafeInteger(value) && value >= least))
    throw new ConfigError(`${named} must be a whole number from ${least}, got '${raw}'`);
  if (value < least) throw new ConfigError(`${named} must be at least ${least}, got '${raw}'`);
  if (option.most !== undefined && value > option.most)
    throw new ConfigError(`${named} must be at most ${option.most}, got '${raw}'`);
  return value;
}

export function helpText(): string {
  const lines = ['Usage: cellseg-mock start [options]', '', 'Options (flag, environment variable, default):'];
  for (const o of OPTIONS) {
    lines.push(
      `  ${o.flag.padEnd(30)} ${o.env.padEnd(26)} ${o.description} [${o.shownDefault ?? String(o.default)}]`,
    );
  }
  return lines.join('\n');
}
