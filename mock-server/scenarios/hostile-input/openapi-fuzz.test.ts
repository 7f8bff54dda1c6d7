import { afterAll, beforeAll, describe, it } from 'vitest';
import { fuzzMock, startFuzzTarget } from '../../../test-support/fuzz-target.js';

// Fixed and bounded for CI; `npm run fuzz` runs longer with a random seed (and replays one).
const SEED = 20261122;
const RUNS = 400;

let target: Awaited<ReturnType<typeof startFuzzTarget>>;
beforeAll(async () => {
  target = await startFuzzTarget();
});
afterAll(() => target.mock.close());

describe('requests generated from the OpenAPI document', () => {
  it(`get no 5xx and only answers the document allows (seed ${SEED}, ${RUNS} requests)`, async () => {
    await fuzzMock(target, { seed: SEED, numRuns: RUNS });
  }, 120_000);
});
