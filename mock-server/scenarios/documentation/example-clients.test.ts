/**
 * The two example clients of examples/readiness/ through a readiness run, their verdicts pinned
 * case by case: a change in what readiness arms, judges or reports shows here. The careful client
 * runs as docs/readiness.md's worked example, pasted as written.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../test-support/launched-mock.js';
import { runBash } from '../../../test-support/run-bash.js';

interface ReportedCase {
  id: string;
  verdict: string;
  because: string;
  reaction: string | null;
  evidence: string[];
  run: { lastLines: string[]; timedOut: boolean } | null;
}
interface Reported {
  baseline: { passed: boolean; operations: string[] };
  cases: ReportedCase[];
}

const verdicts = (r: Reported) => Object.fromEntries(r.cases.map((c) => [c.id, c.verdict]));
const byId = (r: Reported, id: string) => r.cases.find((c) => c.id === id) as ReportedCase;

function docsExample(): string {
  const doc = readFileSync(path.join(REPO_ROOT, 'docs/readiness.md'), 'utf8');
  const block = doc.slice(
    doc.indexOf('<!-- readiness-example:start -->'),
    doc.indexOf('<!-- readiness-example:end -->'),
  );
  const code = /```bash\n([\s\S]*?)```/.exec(block)?.[1];
  if (!code) throw new Error('docs/readiness.md has no bash block between its example markers');
  return code;
}

const DOCS_OUT = path.join(REPO_ROOT, 'readiness-report');
const naiveOut = mkdtempSync(path.join(os.tmpdir(), 'cellseg-readiness-'));
afterAll(() => {
  rmSync(DOCS_OUT, { recursive: true, force: true });
  rmSync(naiveOut, { recursive: true, force: true });
});

function runReadiness(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['bin/cellseg-mock.js', 'readiness', 'run', ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('readiness runs of the example clients', () => {
  it('the careful client, as docs/readiness.md runs it, survives every case it reaches', async () => {
    const run = await runBash(['-c', docsExample()], { cwd: REPO_ROOT, env: {} });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/\| rate-limited: .* \| survived \|/);
    const report = JSON.parse(readFileSync(path.join(DOCS_OUT, 'readiness.json'), 'utf8')) as Reported;
    expect(report.baseline.passed).toBe(true);
    expect(verdicts(report)).toEqual({
      'rate-limited': 'survived',
      unavailable: 'survived',
      'dropped-connection': 'survived',
      'slow-answer': 'survived',
      'part-url-expired': 'does not apply',
      'prediction-failed': 'survived',
      'many-polls': 'survived',
      'storage-cap': 'survived',
      'analysis-cap': 'survived',
      'share-revoked': 'survived',
    });
    expect(byId(report, 'rate-limited').reaction).toMatch(/after Retry-After/);
    expect(byId(report, 'slow-answer').reaction).toMatch(
      /^timed out after \d+ ms, then sent getPrediction again/,
    );
    expect(byId(report, 'prediction-failed').reaction).toBe('stopped polling at FAILED');
    expect(byId(report, 'analysis-cap').reaction).toBe('stopped at the 402 (createPrediction)');
    expect(byId(report, 'share-revoked').reaction).toMatch(/read the share and got revoked_at/);
    for (const file of [
      'readiness.md',
      'readiness.html',
      'junit.xml',
      'journals/baseline.json',
      'journals/many-polls.json',
    ])
      expect(readFileSync(path.join(DOCS_OUT, file), 'utf8').length, file).toBeGreaterThan(100);
    expect(readFileSync(path.join(DOCS_OUT, 'junit.xml'), 'utf8')).toMatch(
      /tests="10" failures="0" skipped="1"/,
    );
  }, 300_000);

  it('the naive client fails what it meets, with evidence, and the time limit ends its endless polling', async () => {
    const run = await runReadiness([
      '--parallel',
      '5',
      '--case-timeout-ms',
      '40000',
      '--out',
      naiveOut,
      '--',
      'node',
      'examples/readiness/naive-client.mjs',
    ]);
    expect(run.code, run.stderr).toBe(1);
    const report = JSON.parse(readFileSync(path.join(naiveOut, 'readiness.json'), 'utf8')) as Reported;
    expect(verdicts(report)).toEqual({
      'rate-limited': 'failed',
      unavailable: 'failed',
      'dropped-connection': 'failed',
      'slow-answer': 'survived',
      'part-url-expired': 'does not apply',
      'prediction-failed': 'failed',
      'many-polls': 'survived',
      'storage-cap': 'failed',
      'analysis-cap': 'failed',
      'share-revoked': 'failed',
    });
    for (const c of report.cases.filter((c) => c.verdict === 'failed')) {
      expect(c.evidence.length, c.id).toBeGreaterThan(0);
      // The naive client polls without a word: what ends by the time limit may have said nothing.
      if (!c.run?.timedOut) expect(c.run?.lastLines.join('\n'), c.id).toMatch(/HTTP \d{3}|fetch failed/);
    }
    expect(byId(report, 'rate-limited').reaction).toBe(
      'gave up: never called uploadImage again after the 429',
    );
    expect(byId(report, 'rate-limited').run?.lastLines.join('\n')).toMatch(/POST \/upload: HTTP 429/);
    expect(byId(report, 'rate-limited').evidence[0]).toMatch(/POST \/api\/v1\/upload → 429 \(armed\)/);
    const failed = byId(report, 'prediction-failed');
    expect(failed.run?.timedOut).toBe(true);
    expect(failed.because).toMatch(/ran past the case's time limit \(40000 ms\) and was ended/);
    expect(failed.reaction).toMatch(/^polled on after FAILED \(\d+ more polls\)$/);
    expect(byId(report, 'share-revoked').reaction).toMatch(/opened the revoked link \(404\)/);
    expect(readFileSync(path.join(naiveOut, 'junit.xml'), 'utf8')).toMatch(/failures="7"/);
  }, 300_000);
});
