import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type RunningMock } from '../mock-server/server.js';
import { SABOTAGES, startSabotageProxy, type Sabotage } from './sabotage-proxy.js';

const run = promisify(execFile);
const seed = JSON.parse(readFileSync(path.resolve('fixtures/seed.json'), 'utf8')) as {
  organizations: Array<{ api_keys: string[] }>;
};
const keys = {
  main: seed.organizations[0].api_keys[0],
  other: seed.organizations[1].api_keys[0],
  tiny: seed.organizations[2].api_keys[0],
};

/**
 * The suite is only worth something if it can fail: each deliberately broken build of the mock
 * (a proxy breaking one rule) must make the clause it breaks fail in the conformance report.
 */
// Each broken build runs in its own vitest process against its own proxy; a few at a time.
describe.concurrent('the contract suite flags a broken target', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startMockServer({
      port: 0,
      logLevel: 'silent',
      predictionStartDelayMs: 10,
      predictionRunDelayMs: 10,
    });
  });
  afterAll(() => mock.close());

  for (const [name, sabotage] of Object.entries(SABOTAGES) as Array<
    [Sabotage, (typeof SABOTAGES)[Sabotage]]
  >) {
    it(`flags ${name} (breaks ${sabotage.breaks.join(', ')})`, { timeout: 300_000 }, async () => {
      const proxy = await startSabotageProxy(mock.url, name, keys);
      const reportDir = mkdtempSync(path.join(os.tmpdir(), `sabotage-${name}-`));
      try {
        const files = sabotage.files.map((f) => `contract-tests/checks/${f}`);
        const only: string | undefined = 'only' in sabotage ? sabotage.only : undefined;
        await run(
          'npx',
          ['vitest', 'run', '--project', 'contract', ...files, ...(only ? ['-t', only] : [])],
          {
            env: {
              ...process.env,
              CONTRACT_BASE_URL: proxy.url,
              CONTRACT_PROFILE: 'mock',
              CONTRACT_API_KEY: keys.main,
              CONTRACT_OTHER_ORG_API_KEY: keys.other,
              CONTRACT_TINY_API_KEY: keys.tiny,
              CONTRACT_REPORT_DIR: reportDir,
              CONTRACT_POLL_TIMEOUT_MS: '5000',
              ...('env' in sabotage ? sabotage.env : {}),
            },
            maxBuffer: 64 * 1024 * 1024,
          },
        ).catch((err: { code?: number }) => {
          if (err.code !== 1) throw err; // 1: checks failed, as they should
        });
        const report = JSON.parse(readFileSync(path.join(reportDir, 'conformance.json'), 'utf8')) as {
          clauses: Array<{ id: string; outcome: string; checks: Array<{ error?: string }> }>;
        };
        const failed = report.clauses.filter((c) => c.outcome === 'fail');
        for (const clause of sabotage.breaks)
          expect(
            failed.map((c) => c.id),
            `clauses failed under ${name}`,
          ).toContain(clause);
        if ('message' in sabotage) {
          const errors = failed.flatMap((c) => c.checks.map((k) => k.error ?? '')).join('\n');
          expect(errors).toMatch(sabotage.message);
        }
      } finally {
        await proxy.close();
        rmSync(reportDir, { recursive: true, force: true });
      }
    });
  }
});
