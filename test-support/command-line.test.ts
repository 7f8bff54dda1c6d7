/**
 * The repository's own tools on the command line: `--help` prints the usage and exits 0 before
 * anything starts; a mistyped option or one without its value is one line naming it, exit 2,
 * never a stack trace.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CommandLineError, readCommandLine } from './command-line.js';
import { REPO_ROOT } from './launched-mock.js';
import { REGRESSION_SETS } from './regression-sets/sets.js';

describe('readCommandLine', () => {
  const config = { options: { set: { type: 'string' }, quick: { type: 'boolean' } } } as const;
  const error = (argv: string[]) => {
    try {
      readCommandLine(config, argv);
    } catch (err) {
      expect(err).toBeInstanceOf(CommandLineError);
      return (err as Error).message;
    }
    throw new Error(`${argv.join(' ')} was read as a good command line`);
  };

  it('reads the options it knows', () => {
    expect(readCommandLine(config, ['--set', 'b', '--quick'])).toMatchObject({
      values: { set: 'b', quick: true },
    });
  });

  it('answers help for --help or -h anywhere before --, even beside a bad option', () => {
    expect(readCommandLine(config, ['--help'])).toBe('help');
    expect(readCommandLine(config, ['--bogus', '-h'])).toBe('help');
  });

  it('leaves a --help after -- to what the tool runs', () => {
    expect(() => readCommandLine(config, ['--', '--help'])).toThrow("unexpected argument '--help'");
  });

  it('names an unknown option, a missing value, a value given to a flag, a stray argument', () => {
    expect(error(['--bogus'])).toBe("unknown option '--bogus'");
    expect(error(['--set'])).toBe('--set needs a value');
    expect(error(['--set', '--quick'])).toBe('--set needs a value');
    expect(error(['--quick=yes'])).toBe('--quick takes no value');
    expect(error(['stray'])).toBe("unexpected argument 'stray'");
  });

  it('keeps the words of an unknown option when positional arguments are allowed', () => {
    expect(() => readCommandLine({ ...config, allowPositionals: true }, ['case', '--bogus'])).toThrow(
      new CommandLineError("unknown option '--bogus'"),
    );
  });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `entry` as npm's script does and collects what it says; killed if it outlives `ms`. */
function run(entry: string[], args: string[], ms = 50_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entry, ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    // A tool that ignores --help starts its real work: stop it rather than wait for it.
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const tsx = (file: string) => ['--import', 'tsx', file];

/**
 * Each tool, how npm runs it, the options its --help must name, an option tried without its value
 * (readCommandLine's tests above try the rest of parseArgs' words), and options put first on every
 * command line tried: were the tool to run in spite of a bad one, they
 * keep the run short and leave committed files alone (a subset of a set, a quick bench).
 */
const TOOLS: Array<{ name: string; entry: string[]; names: string[]; valued?: string; guard?: string[] }> = [
  {
    name: 'regressions',
    entry: tsx('test-support/regression-sets/run-regression-set.ts'),
    names: ['--set', '--only', '--lanes', '--label', '--record'],
    valued: '--set',
    guard: ['--only', REGRESSION_SETS.a.regressions[0].id],
  },
  {
    name: 'mutate',
    entry: tsx('test-support/mutation/run-mutation.ts'),
    names: ['--workers', '--sample', '--seed', '--only', '--ids', '--threshold', '--report-dir'],
    guard: ['--only', 'NO-SUCH-MUTANT'],
  },
  {
    name: 'crash-test',
    entry: tsx('test-support/crash/run-crash-test.ts'),
    names: ['--rounds', '--seed', '--root'],
  },
  {
    name: 'sabotage',
    entry: tsx('test-support/run-sabotage-proxy.ts'),
    names: ['<case>', '--port', '--target', 'no-auth'],
  },
  {
    name: 'bench',
    entry: tsx('bench/run.ts'),
    names: ['--only', '--quick', '--profile', '--render', 'sandbox-cost'],
    valued: '--only',
    guard: ['--quick'],
  },
  {
    name: 'fuzz',
    entry: tsx('scripts/fuzz.ts'),
    names: ['--seed', '--runs', 'FUZZ_SEED', 'FUZZ_RUNS'],
    valued: '--seed',
    guard: ['--runs', '1'],
  },
  {
    name: 'trace',
    entry: tsx('test-support/mutation/write-trace.ts'),
    names: ['usage: npm run trace', 'mutation-record.json'],
  },
];

describe.concurrent.each(TOOLS)('npm run $name', ({ name, entry, names, guard = [] }) => {
  it('--help prints the usage, naming each option, and exits 0', async () => {
    const { code, stdout, stderr } = await run(entry, [...guard, '--help']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    for (const option of names) expect(stdout).toContain(option);
  });

  it('an unknown option is one line naming it, exit 2', async () => {
    const { code, stdout, stderr } = await run(entry, [...guard, '--no-such-option']);
    expect(stderr).toBe(`${name}: unknown option '--no-such-option' (see --help)\n`);
    expect(code).toBe(2);
    expect(stdout).toBe('');
  });
});

describe.concurrent.each(TOOLS.filter((tool) => tool.valued))(
  'npm run $name',
  ({ name, entry, valued, guard = [] }) => {
    it(`${valued} without its value is one line naming it, exit 2`, async () => {
      const { code, stderr } = await run(entry, [...guard, valued!]);
      expect(stderr).toBe(`${name}: ${valued} needs a value (see --help)\n`);
      expect(code).toBe(2);
    });
  },
);

describe('npm run regressions', () => {
  const entry = tsx('test-support/regression-sets/run-regression-set.ts');
  // A subset: were --lanes read as no lane at all again, the run would measure nothing and end,
  // leaving the set's committed results alone (a whole set would be rewritten with no result).
  const subset = ['--only', REGRESSION_SETS.a.regressions[0].id];

  it('refuses a number of lanes that is not a whole number of at least one', async () => {
    for (const lanes of ['two', '0', '']) {
      const { code, stderr } = await run(entry, [...subset, '--lanes', lanes]);
      expect(stderr).toBe(
        `regressions: --lanes needs a whole number of at least 1, not '${lanes}' (see --help)\n`,
      );
      expect(code).toBe(2);
    }
  });

  it('names an unknown set and the known ones', async () => {
    const { code, stderr } = await run(entry, ['--set', 'zz']);
    expect(stderr).toMatch(/^regressions: unknown set 'zz': known sets are a, b, .*\(see --help\)\n$/);
    expect(code).toBe(2);
  });
});

describe('npm run mutate', () => {
  const entry = tsx('test-support/mutation/run-mutation.ts');
  // No mutant matches the prefix: were the options read late again, the run would stop on that.
  const none = ['--only', 'NO-SUCH-MUTANT'];

  it('refuses a threshold that is no number before starting anything', async () => {
    const { code, stderr } = await run(entry, [...none, '--threshold', 'high']);
    expect(stderr).toBe("mutate: --threshold must be a number, not 'high' (see --help)\n");
    expect(code).toBe(2);
  });

  it('says in one line that the --ids file cannot be read', async () => {
    const { code, stderr } = await run(entry, ['--ids', 'no/such/ids.txt']);
    expect(stderr).toBe("mutate: --ids: cannot read 'no/such/ids.txt' (ENOENT) (see --help)\n");
    expect(code).toBe(2);
  });
});

describe('npm run crash-test', () => {
  it('refuses a number of rounds or a seed that is no whole number', async () => {
    const entry = tsx('test-support/crash/run-crash-test.ts');
    const rounds = await run(entry, ['--rounds', 'many']);
    // Read as no number, it ran no round and reported that nothing was lost.
    expect(rounds.stderr).toBe(
      "crash-test: --rounds needs a whole number of at least 1, not 'many' (see --help)\n",
    );
    expect(rounds.code).toBe(2);
    const seed = await run(entry, ['--rounds', '1', '--seed', 'x']);
    expect(seed.stderr).toBe("crash-test: --seed needs a whole number, not 'x' (see --help)\n");
    expect(seed.code).toBe(2);
  });
});

describe('npm run bench', () => {
  it('refuses an --only that names no section, and one that names an unknown section', async () => {
    const entry = tsx('bench/run.ts');
    const none = await run(entry, ['--quick', '--only=']);
    // Read as no section, it measured nothing and (without --quick) rewrote the page all the same.
    expect(none.stderr).toMatch(/^bench: --only needs at least one section: http, .*\(see --help\)\n$/);
    expect(none.code).toBe(2);
    const unknown = await run(entry, ['--quick', '--only', 'http,nope']);
    expect(unknown.stderr).toMatch(/^bench: unknown section\(s\) nope; known: http, .*\(see --help\)\n$/);
    expect(unknown.code).toBe(2);
  });
});
