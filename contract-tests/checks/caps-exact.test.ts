/**
 * The burst of predictions past the analysis cap, against a scripted target: a 429 with
 * Retry-After is waited out and sent again, so a target that also rate-limits passes; the cap off
 * by one, a 402 of the wrong shape or a third analysis let through still fail CAP-06; a burst
 * still rate-limited after the last try, short of the cap, is blocked by that 429, not failed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { ApiClient, newCheckRecord } from '../harness/api-client.js';
import type { CheckContext } from '../harness/check.js';
import { BlockedByStep } from '../harness/steps.js';
import { sharedContract } from '../harness/openapi-contract.js';
import { targetFromEnv } from '../harness/target.js';

const bodies = new Map<string, (ctx: CheckContext) => Promise<void>>();
vi.mock('../harness/check.js', () => ({
  check: (title: string, _options: unknown, body: (ctx: CheckContext) => Promise<void>) =>
    bodies.set(title, body),
}));
const org = vi.hoisted(() => ({ client: undefined as unknown, accepted: 0 }));
vi.mock('../harness/control-plane.js', () => ({
  throwawayOrganization: async () => ({
    client: org.client,
    usage: async () => ({ analyses_this_month: org.accepted }),
  }),
}));
vi.mock('../harness/flows.js', () => ({
  uploadFile: async () => ({
    status: 200,
    body: { image: { id: randomUUID() } },
    request: { method: 'POST', path: '/api/v1/upload', url: '', label: 'uploadImage' },
  }),
}));
vi.mock('../harness/model-choice.js', () => ({ fittingModelId: async () => randomUUID() }));
vi.mock('../harness/sample-images.js', () => ({ presetTiff: () => ({ bytes: Buffer.alloc(0) }) }));

type Scripted = { status: number; body: object; headers?: Record<string, string> };
const accepted = (): Scripted => ({
  status: 200,
  body: { prediction_id: randomUUID(), status: 'submitted', reason: null },
});
const refused: Scripted = { status: 402, body: { detail: 'Monthly analysis cap reached (2 analyses).' } };
const rateLimited: Scripted = {
  status: 429,
  body: { detail: 'Rate limit reached: wait for Retry-After.' },
  headers: { 'retry-after': '1' },
};

/** The target's answers to POST /predict, in the order the requests arrive. */
let script: Scripted[] = [];
let server: http.Server;
let baseUrl: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume().on('end', () => {
      const answer = script.shift() ?? refused;
      if (answer.status === 200) org.accepted++;
      res
        .writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
        .end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/**
 * Runs the burst check against the script; answers its clauses' failures, the answers that broke
 * the rest, and the step that blocked it, if one did.
 */
async function burst(
  answers: Scripted[],
): Promise<{ failed: string[]; violations: string[]; blocked?: string }> {
  await import('./caps-exact.check.js');
  script = answers;
  org.accepted = 0;
  const target = targetFromEnv({ CONTRACT_API_KEY: 'sk_test_burst' }, baseUrl);
  const record = newCheckRecord();
  org.client = new ApiClient(sharedContract(), target, target.keys.main, record);
  const failed: string[] = [];
  const verify = async (clause: string, assertions: () => unknown) => {
    try {
      await assertions();
    } catch (err) {
      failed.push(`${clause}: ${(err as Error).message}`);
    }
  };
  const body = [...bodies].find(([title]) => title.startsWith('predictions sent at once'))![1];
  try {
    await body({ target, verify } as unknown as CheckContext);
  } catch (err) {
    if (!(err instanceof BlockedByStep)) throw err;
    return { failed, violations: record.violations, blocked: err.message };
  }
  return { failed, violations: record.violations };
}

it('waits out a 429 with Retry-After and sends that prediction again: the cap is judged by the rest', async () => {
  expect(await burst([accepted(), rateLimited, accepted(), refused])).toEqual({ failed: [], violations: [] });
});

it('fails a third analysis let through, a 402 one request early, and a 402 of the wrong shape', async () => {
  const third = await burst([accepted(), accepted(), accepted()]);
  expect(third.failed.join('\n')).toMatch(/CAP-06: .*\[ 200, 200, 200 \].*\n.*CAP-07: .*expected 3 to be 2/s);
  const early = await burst([accepted(), rateLimited, refused, refused]);
  expect(early.failed.join('\n')).toMatch(/CAP-06: .*\[ 200, 402, 402 \]/);
  const shapeless = await burst([accepted(), accepted(), { status: 402, body: { error: 'cap' } }]);
  expect(shapeless.failed.join('\n')).toMatch(/CAP-06: createPrediction 402: type of detail/);
});

it('is blocked, not failed, by a 429 that lasts past the last try short of the cap; one without Retry-After breaks the document', async () => {
  const lasting = await burst([accepted(), accepted(), rateLimited, rateLimited, rateLimited]);
  expect(lasting).toEqual({
    failed: [],
    violations: [],
    blocked:
      'blocked by step: POST /api/v1/predict (createPrediction) answered 429, still after 3 tries (1 of 3 predictions rate-limited): the burst never reached the analysis cap',
  });
  const { headers: _, ...bare } = rateLimited;
  const unsaid = await burst([accepted(), accepted(), bare]);
  expect(unsaid.blocked).toBeUndefined();
  expect(unsaid.violations.join('\n')).toMatch(/retry-after/i);
});

it('is blocked by a target that rate-limits every prediction of the burst', async () => {
  const everyOne = await burst(Array.from({ length: 9 }, () => rateLimited));
  expect(everyOne.failed).toEqual([]);
  expect(everyOne.blocked).toMatch(/answered 429, still after 3 tries \(3 of 3 predictions rate-limited\)/);
});

it('still fails a 402 under the cap among the answers that a rate limit left', async () => {
  const early = await burst([accepted(), refused, rateLimited, rateLimited, rateLimited]);
  expect(early.failed.join('\n')).toMatch(/CAP-06: .*1 of them still rate-limited.*\[ 200, 402 \]/s);
  expect(early.blocked).toMatch(/answered 429/);
});
