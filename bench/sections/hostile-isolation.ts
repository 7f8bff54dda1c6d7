/**
 * Rows of the hostile section about one organization abusing the sandbox (docs/limits.md):
 *
 * 1. Beta's GET /models every 250 ms (a fifth of the limit), alone, then while Acme sends GET
 *    /models at four times its rate limit (an open loop, at most 8 of Acme's requests in flight
 *    so the load generator itself keeps up): Beta's p99 with and without Acme, on a mock with
 *    --rate-limit-per-second (its own child). The peer: the same two loads on the section's mock,
 *    which has no limit, so every one of Acme's requests is served.
 * 2. Key checks: an unknown key that shares all but its last character with a real one, against a
 *    random unknown key, both answered 401: the ratio of their median latency. The lookup is by
 *    the key's hash, then a constant-time compare (domain/api-keys.ts), so a near miss should not
 *    take longer than a far one.
 */
import { ACME_KEY, seed } from '../../test-support/api-client.js';
import { sleep, startTsChild, type Child } from '../support/processes.js';
import { fmt, median, type BenchContext, type Row } from '../support/report.js';

const BETA_KEY = seed.organizations[1].api_keys[0] as string;
// Small enough for a loaded 2-core machine to answer every request offered (4x the limit plus
// the quiet pace): when the host cannot keep up, every request queues whatever the limit says.
const RATE_LIMIT = 20;
/** The quiet organization's pace: a fifth of the limit, so its own bursts never reach it. */
const QUIET_EVERY_MS = 250;
const NOISY_IN_FLIGHT = 8;

interface Probe {
  count: number;
  p50: number;
  p99: number;
  refused: number;
  failures: number;
}

/**
 * GET /models with `key`, one every `everyMs` whether or not the last answered, for `ms`; latency
 * from when each was due. With `maxInFlight`, a request due while that many wait is not sent.
 */
async function openLoop(
  base: string,
  key: string,
  everyMs: number,
  ms: number,
  { maxInFlight = Infinity } = {},
): Promise<Probe & { skipped: number }> {
  const samples: number[] = [];
  let refused = 0;
  let failures = 0;
  let skipped = 0;
  let waiting = 0;
  const inFlight: Array<Promise<void>> = [];
  const start = performance.now();
  for (let i = 0; i * everyMs < ms; i++) {
    const due = start + i * everyMs;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    if (waiting >= maxInFlight) {
      skipped++;
      continue;
    }
    waiting++;
    inFlight.push(
      fetch(`${base}/api/v1/models`, { headers: { authorization: `Bearer ${key}` } })
        .then(async (res) => {
          await res.arrayBuffer();
          if (res.status === 429) refused++;
          else if (res.status !== 200) failures++;
        })
        .catch(() => void failures++)
        .finally(() => {
          waiting--;
          samples.push(performance.now() - due);
        }),
    );
  }
  await Promise.all(inFlight);
  const s = samples.sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
  return { count: s.length, p50: at(0.5), p99: at(0.99), refused, failures, skipped };
}

/** Median latency of a 401 for each of two keys, sent alternately so both see the same machine. */
async function keyCheckLatency(
  base: string,
  keys: [string, string],
  rounds: number,
): Promise<[number, number]> {
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < rounds; i++) {
    for (const which of [0, 1] as const) {
      const t = performance.now();
      const res = await fetch(`${base}/api/v1/models`, {
        headers: { authorization: `Bearer ${keys[which]}` },
      });
      await res.arrayBuffer();
      if (res.status !== 401) throw new Error(`an unknown key answered ${res.status}`);
      times[which].push(performance.now() - t);
    }
  }
  return [median(times[0]), median(times[1])];
}

/** Beta's probe alone, then beside Acme sending four times the rate limit. */
async function quietBesideNoisy(base: string, ms: number) {
  await openLoop(base, BETA_KEY, QUIET_EVERY_MS, 1000);
  const alone = await openLoop(base, BETA_KEY, QUIET_EVERY_MS, ms);
  const [beside, noise] = await Promise.all([
    openLoop(base, BETA_KEY, QUIET_EVERY_MS, ms),
    openLoop(base, ACME_KEY, 1000 / (4 * RATE_LIMIT), ms, { maxInFlight: NOISY_IN_FLIGHT }),
  ]);
  return { alone, beside, noise };
}

export async function runIsolationRows(
  ctx: BenchContext,
  unlimited: Child,
): Promise<{ rows: Row[]; data: Record<string, unknown> }> {
  const mock = await startTsChild('bench/support/mock-child.ts', [], {
    env: { BENCH_RATE_LIMIT_PER_SECOND: String(RATE_LIMIT) },
  });
  try {
    const ms = ctx.quick ? 2000 : 6000;
    ctx.log(`hostile: Beta's GET /models alone, then while Acme sends 4x its limit of ${RATE_LIMIT}/s`);
    const limited = await quietBesideNoisy(mock.url, ms);
    ctx.log('hostile: the same on a mock with no limit');
    const open = await quietBesideNoisy(unlimited.url, ms);
    ctx.log(`hostile: key checks, a near-miss key against a random one`);
    const nearMiss = ACME_KEY.slice(0, -1) + (ACME_KEY.endsWith('0') ? '1' : '0');
    const random = `sk_test_${'f'.repeat(ACME_KEY.length - 8)}`;
    const [near, far] = await keyCheckLatency(mock.url, [nearMiss, random], ctx.quick ? 200 : 1000);
    const ms3 = (p: Probe) =>
      `p50 ${fmt.ms(p.p50)}, p99 ${fmt.ms(p.p99)} (${p.count} requests${p.refused + p.failures ? `, ${p.refused + p.failures} not 200` : ''})`;
    const { alone, beside, noise } = limited;
    return {
      rows: [
        {
          section: 'Hostile input',
          metric: `GET /models for a second organization (every ${QUIET_EVERY_MS} ms) while one sends GET /models at 4x its rate limit (--rate-limit-per-second ${RATE_LIMIT}; ${noise.refused} of its ${noise.count} sent refused with 429, ${noise.skipped} not sent: ${NOISY_IN_FLIGHT} in flight)`,
          ours: `${ms3(beside)}; alone: ${ms3(alone)}`,
          peer: `no limit (all ${open.noise.count} served): ${ms3(open.beside)}; alone: ${ms3(open.alone)}`,
          ratio: `p99 ${fmt.x(beside.p99 / alone.p99)} alone (no limit: ${fmt.x(open.beside.p99 / open.alone.p99)})`,
          target: 'never refused; p99 < 100 ms',
          ok: beside.refused === 0 && beside.failures === 0 && beside.p99 < 100,
        },
        {
          section: 'Hostile input',
          metric: 'key check: median latency of a 401 for a key one character off a real one',
          ours: fmt.ms(near),
          peer: `a random unknown key: ${fmt.ms(far)}`,
          ratio: fmt.x(near / far),
          target: 'none (constant time by construction: lookup by hash, timingSafeEqual)',
          ok: null,
        },
      ],
      data: { limited, unlimited: open, keyChecks: { nearMissMs: near, randomMs: far } },
    };
  } finally {
    await mock.stop();
  }
}
