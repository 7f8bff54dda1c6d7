/**
 * `npm run fuzz [-- --seed <n>] [--runs <n>]`: the document-driven fuzz test for longer than CI
 * runs it, with a random seed unless one is given. The seed is printed first, so a failure can be
 * replayed exactly: `npm run fuzz -- --seed <n> --runs <n>`.
 */
import { commandLine, usageError } from '../test-support/command-line.js';
import { fuzzMock, startFuzzTarget } from '../test-support/fuzz-target.js';

const USAGE = `usage: npm run fuzz -- [--seed N] [--runs N]

The document-driven fuzz test, longer than CI runs it: random requests built from the document,
each answer checked against it, no 5xx allowed.

  --seed N     the seed (default FUZZ_SEED, else a random one; printed first, for a replay)
  --runs N     how many requests (default FUZZ_RUNS, else 5000)
  --help, -h   this text`;

const { values } = commandLine('fuzz', USAGE, {
  options: { seed: { type: 'string' }, runs: { type: 'string' } },
});

/** The option's whole number, else its FUZZ_ variable's; undefined when neither is given. */
function option(name: 'seed' | 'runs', min: number): number | undefined {
  const variable = `FUZZ_${name.toUpperCase()}`;
  const raw = values[name] ?? process.env[variable];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isSafeInteger(value) || value < min)
    usageError(
      'fuzz',
      `${values[name] === undefined ? variable : `--${name}`} needs an integer${min > 0 ? ` of at least ${min}` : ''}, got '${raw}'`,
    );
  return value;
}

const seed = option('seed', Number.MIN_SAFE_INTEGER) ?? Math.floor(Math.random() * 2 ** 31);
const numRuns = option('runs', 1) ?? 5000;
console.log(
  `fuzz: seed ${seed}, ${numRuns} requests (replay: npm run fuzz -- --seed ${seed} --runs ${numRuns})`,
);
const target = await startFuzzTarget();
let failed = false;
try {
  await fuzzMock(target, { seed, numRuns });
  console.log(`fuzz: ${numRuns} requests, no 5xx, every answer as the document allows (seed ${seed})`);
} catch (err) {
  failed = true;
  console.error(String((err as Error).message));
  if ((err as Error).cause)
    console.error(`\n${String(((err as Error).cause as Error).message ?? (err as Error).cause)}`);
  console.error(`\nreplay: npm run fuzz -- --seed ${seed} --runs ${numRuns}`);
} finally {
  await target.mock.close();
}
process.exit(failed ? 1 : 0);
