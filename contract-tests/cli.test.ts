/**
 * `npm run contract` stops before any check when a key cannot work: one line on stderr naming the
 * variable (the prefixed one with --compare, for either side, before A runs), exit code 2. The
 * target here is a stand-in that knows one key: nothing past GET /models may reach it.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = path.resolve(import.meta.dirname, '..');
const GOOD = 'sk_test_good_0123456789';
let server: http.Server;
let url: string;
const seen: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    if (req.headers.authorization === 'Bearer sk_test_silent') return; // a target that never answers
    const ok = req.url === '/api/v1/models' && req.headers.authorization === `Bearer ${GOOD}`;
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
    res.end(ok ? '[]' : '{"detail":"Invalid API key"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function contract(args: string[], keys: Record<string, string>) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('CONTRACT_')),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', 'contract-tests/cli.ts', ...args], {
    cwd: REPO,
    env: { ...env, ...keys, NO_COLOR: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

/** stderr's lines, without npm's and Node's own warnings. */
const lines = (stderr: string) =>
  stderr.split('\n').filter((line) => line && !/^npm warn|ExperimentalWarning|--trace-warnings/.test(line));

describe('a key that cannot work stops the run before any check', () => {
  it('--compare: a refused B key is named as given (CONTRACT_B_API_KEY), before A runs', async () => {
    const run = await contract(['--compare', url, url], {
      CONTRACT_A_API_KEY: GOOD,
      CONTRACT_B_API_KEY: 'sk_test_wrong',
    });
    expect(run.code).toBe(2);
    expect(lines(run.stderr)).toEqual([
      `error: B (${url}): CONTRACT_B_API_KEY was rejected by ${url} (GET /api/v1/models answered 401)`,
    ]);
    expect(run.stdout).not.toContain('=== A');
  });

  it('--compare: a side without its own key is told which variable it fell back to', async () => {
    const run = await contract(['--compare', url, url], { CONTRACT_API_KEY: 'sk_test_wrong' });
    expect(run.code).toBe(2);
    expect(lines(run.stderr)).toEqual([
      `error: A (${url}): CONTRACT_API_KEY (CONTRACT_A_API_KEY is not set) was rejected by ${url} (GET /api/v1/models answered 401)`,
    ]);
  });

  it('a missing key is named', async () => {
    const run = await contract(['--base-url', url], {});
    expect(run.code).toBe(2);
    expect(lines(run.stderr)).toEqual([
      `error: CONTRACT_API_KEY is not set: the main organization's key is needed to check ${url}`,
    ]);
  });

  it('a key shortened with an ellipsis when copied is named, with where, and never sent', async () => {
    const before = seen.length;
    const run = await contract(['--base-url', url], {
      CONTRACT_API_KEY: GOOD,
      CONTRACT_OTHER_ORG_API_KEY: 'sk_test_beta_…',
    });
    expect(run.code).toBe(2);
    expect(lines(run.stderr)).toEqual([
      "error: CONTRACT_OTHER_ORG_API_KEY holds '…' (U+2026) at character 14, which no API key has (printable ASCII, no spaces): copy the whole key",
    ]);
    expect(seen.slice(before)).toEqual([]);
  });

  it('a target that is not there is said in words', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const gone = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const run = await contract(['--base-url', gone], { CONTRACT_API_KEY: GOOD });
    expect(run.code).toBe(2);
    expect(lines(run.stderr)).toEqual([
      `error: ${gone} cannot be reached: nothing accepts connections at this address (ECONNREFUSED: connect ECONNREFUSED ${gone.slice('http://'.length)})`,
    ]);
  });

  it('a target that never answers is said in words at the request timeout', async () => {
    const run = await contract(['--base-url', url, '--request-timeout-ms', '300'], {
      CONTRACT_API_KEY: 'sk_test_silent',
    });
    expect(run.code).toBe(2);
    expect(lines(run.stderr)).toEqual([
      `error: ${url} cannot be reached: the target sent no answer within 300 ms (--request-timeout-ms)`,
    ]);
  });
});

describe('the command line', () => {
  it('names an unknown option, and an option without its value, before anything starts', async () => {
    const unknown = await contract(['--base-url', url, '--pace', '5'], { CONTRACT_API_KEY: GOOD });
    expect(unknown.code).toBe(2);
    expect(lines(unknown.stderr)).toEqual(["error: unknown option '--pace' (see --help)"]);
    const bare = await contract(['--report-dir'], {});
    expect(lines(bare.stderr)).toEqual(['error: --report-dir needs a value']);
    const half = await contract(['--compare', url], {});
    expect(lines(half.stderr)).toEqual(['error: --compare needs two targets']);
  });
});
