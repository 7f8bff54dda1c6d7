/**
 * The command lines of the repository's own tools (`npm run regressions`, `mutate`, `crash-test`,
 * `bench`, ...): `--help` (or `-h`) prints the tool's usage and exits 0 before anything starts; a
 * mistyped option, an option without its value or a value that makes no sense is one line naming
 * it, exit 2, never a stack trace. Node's parseArgs throws on a bad option, and a tool that calls it
 * at the top of its module dies with the trace of that throw.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Config = Omit<ParseArgsConfig, 'args' | 'strict'>;
type Parsed<T extends Config> = ReturnType<typeof parseArgs<T & { strict: true }>>;

/** A command line that cannot be run as it is written; its message names what is wrong. */
export class CommandLineError extends Error {}

/** What `argv` asks for: its usage (`'help'`), or its options and arguments as parseArgs reads them. */
export function readCommandLine<const T extends Config>(config: T, argv: string[]): 'help' | Parsed<T> {
  // What follows `--` belongs to whatever the tool runs, its `--help` included.
  const own = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  if (own.includes('--help') || own.includes('-h')) return 'help';
  try {
    return parseArgs({ ...config, args: argv, strict: true }) as Parsed<T>;
  } catch (err) {
    throw new CommandLineError(reworded(err as Error & { code?: string }));
  }
}

/** parseArgs' errors in one short line each, the option or argument named as it was given. */
function reworded(err: Error & { code?: string }): string {
  const named = /'(-?-?[^' ]*)/.exec(err.message)?.[1] ?? '';
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option '${named}'`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument '${named}'`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return /does not take/.test(err.message) ? `${named} takes no value` : `${named} needs a value`;
    default:
      return err.message;
  }
}

/**
 * `readCommandLine` for a tool's own process: prints `usage` and exits 0 on `--help`, prints the
 * one line and exits 2 on a command line that cannot be run.
 */
export function commandLine<const T extends Config>(
  tool: string,
  usage: string,
  config: T,
  argv: string[] = process.argv.slice(2),
): Parsed<T> {
  try {
    const read = readCommandLine(config, argv);
    if (read === 'help') {
      console.log(usage);
      process.exit(0);
    }
    return read;
  } catch (err) {
    if (err instanceof CommandLineError) usageError(tool, err.message);
    throw err;
  }
}

/** One line on stderr naming what is wrong with the command line, and exit code 2. */
export function usageError(tool: string, message: string): never {
  console.error(`${tool}: ${message} (see --help)`);
  process.exit(2);
}

/** An option's value as a whole number of at least `min`; a usage error otherwise. */
export function wholeNumber(tool: string, option: string, raw: string, min = 0): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isSafeInteger(value) || value < min)
    usageError(tool, `--${option} needs a whole number${min > 0 ? ` of at least ${min}` : ''}, not '${raw}'`);
  return value;
}
