/**
 * `npm run fuzz [-- --seed <n>] [--runs <n>]`: the document-driven fuzz test for longer than CI
 * runs it, with a random seed unless one is given. The seed is printed first, so a failure can be
 * replayed exactly: `npm run fuzz -- --seed <n> --runs <n>`.
 */
import { fuzzMock, startFuzzTarget } from '../test-support/fuzz-target.js';

function option(name: string): number | undefined {
  const index = process.argv.indexOf(`--${name}`);
  const raw = index >= 0 ? process.argv[index + 1] : process.env[`FUZZ_${name.toUpperCase()}`];
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) {
    console.error(`--${name} needs an integer, got '${raw}'`);
    process.exit(2);
  }
  return value;
}

const seed = option('seed') ?? Math.floor(Math.random() * 2 ** 31);
const numRuns = option('runs') ?? 5000;
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
