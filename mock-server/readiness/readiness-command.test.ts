/**
 * `cellseg-mock readiness` from the command line: the exposure of a running mock's organization,
 * and the answers to bad input (an unknown key, an unknown command, a command that hangs).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT } from '../../test-support/launched-mock.js';
import { startMock, type RunningMockInstance } from '../index.js';
import { readinessRun } from './readiness-run.js';
import { runInGroup } from './run-in-group.js';

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['bin/cellseg-mock.js', ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

let mock: RunningMockInstance;
beforeAll(async () => {
  mock = await startMock();
  await mock.setFault({ operation_id: 'listModels', status: 503, times: 1 });
  for (let i = 0; i < 2; i++)
    await fetch(`${mock.apiUrl}/models`, { headers: { authorization: `Bearer ${mock.apiKey}` } });
});
afterAll(() => mock.close());

describe('cellseg-mock readiness', () => {
  it('says the evidence is incomplete when a busy client with the same key filled the journal', async () => {
    const small = await startMock({ journalEntriesPerOrganization: 5 });
    try {
      await small.setFault({ operation_id: 'listModels', status: 503, times: 1 });
      // the client meets the 503, then a neighbour with its key sends 5 more: the 503 is pushed out
      for (let i = 0; i < 6; i++)
        await fetch(`${small.apiUrl}/models`, { headers: { authorization: `Bearer ${small.apiKey}` } });
      const read = (...format: string[]) =>
        cli(['readiness', '--org', small.apiKey, '--base-url', small.baseUrl, ...format]);
      const md = await read();
      expect(md.stdout).toMatch(/\| unavailable: 503 Service Unavailable \| not met \|/);
      expect(md.stdout).toMatch(
        /\*\*Evidence incomplete: the journal keeps this organization's last 5 requests and is full, so any made before \S+Z were pushed out .* start the mock with a larger --journal-entries-per-org\.\*\*/,
      );
      const html = await read('--format', 'html');
      expect(html.stdout).toMatch(/<p class="failed">Evidence incomplete: /);
      const json = await read('--format', 'json');
      expect(JSON.parse(json.stdout)).toMatchObject({ requests: 5, overflowed: true });
    } finally {
      await small.close();
    }
  }, 60_000);

  it('reads all the journal keeps: a larger --journal-entries-per-org widens its window past 1000', async () => {
    const large = await startMock({ journalEntriesPerOrganization: 1500 });
    try {
      const h = { authorization: `Bearer ${large.apiKey}` };
      for (let i = 0; i < 1200; i++)
        await (await fetch(`${large.apiUrl}/models`, { headers: h })).arrayBuffer();
      const read = await (await fetch(`${large.baseUrl}/__mock/org/readiness`, { headers: h })).json();
      expect(read).toMatchObject({ requests: 1200, overflowed: false });
    } finally {
      await large.close();
    }
  }, 60_000);

  it('renders what the organization met, from its journal, in md, json and html', async () => {
    const md = await cli(['readiness', '--org', mock.apiKey, '--base-url', mock.baseUrl]);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toMatch(/\| listModels \| 2 \| [\d, ]+ \| 200, 503 \|/);
    expect(md.stdout).toMatch(
      /\| unavailable: 503 Service Unavailable \| met \| .* listModels \/api\/v1\/models → 503 \|/,
    );
    expect(md.stdout).toMatch(/\| rate-limited: .* \| not met \|/);
    // the window it read: every request of the organization, none pushed out
    expect(md.stdout).toMatch(
      /\d+ requests read, the oldest made at \d{4}-\d\d-\d\dT[\d:.]+Z \(none pushed out of the journal\)/,
    );
    expect(md.stdout).not.toContain('Evidence incomplete');
    const json = await cli([
      'readiness',
      '--org',
      mock.apiKey,
      '--base-url',
      `${mock.apiUrl}/`,
      '--format',
      'json',
    ]);
    const parsed = JSON.parse(json.stdout) as {
      organization_id: string;
      cases: { id: string; met: boolean }[];
    };
    expect(parsed.organization_id).toBe(mock.organizations[0].id);
    expect(parsed.cases.find((c) => c.id === 'unavailable')?.met).toBe(true);
    const html = await cli([
      'readiness',
      '--org',
      mock.apiKey,
      '--base-url',
      mock.baseUrl,
      '--format',
      'html',
    ]);
    expect(html.stdout).toMatch(/^<!doctype html>[\s\S]*<td class="met">met<\/td>/);
  }, 60_000);

  it('names the 401 of a key no organization has, in one line, and exits 1', async () => {
    const run = await cli(['readiness', '--org', 'sk_test_nobody', '--base-url', mock.baseUrl]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([
      `cellseg-mock readiness: 401 Unauthorized from ${mock.baseUrl}: no organization has the key given with --org`,
    ]);
  }, 60_000);

  it('answers a command that does not exist with one line naming it and exit 2', async () => {
    const top = await cli(['readines']);
    expect(top.code).toBe(2);
    expect(top.stderr.trim().split('\n')).toEqual([
      "cellseg-mock: unknown command 'readines' (cellseg-mock help lists the commands)",
    ]);
    const sub = await cli(['readiness', 'walk']);
    expect(sub.code).toBe(2);
    expect(sub.stderr.trim()).toBe(
      "cellseg-mock readiness: unknown command 'walk' (readiness takes 'run' or --org KEY)",
    );
    // A run that tests nothing must not pass: a blank command, or --cases naming none.
    for (const args of [
      ['--', ''],
      ['--', '  '],
      ['--cases', ',', '--', 'true'],
    ]) {
      const blank = await cli(['readiness', 'run', ...args]);
      expect(blank.code, args.join(' ')).toBe(2);
      expect(blank.stderr).toMatch(
        /^cellseg-mock readiness: (no command to run|--cases ',' names no case \(known: rate-limited, )/,
      );
    }
    // The test command's own -v is not the mock's --version: the run happens (its baseline fails here).
    const reports = mkdtempSync(path.join(os.tmpdir(), 'cellseg-readiness-'));
    const verbose = await cli(['readiness', 'run', '--out', reports, '--', 'sh', '-c', 'exit 3', 'sh', '-v']);
    rmSync(reports, { recursive: true });
    expect(verbose.stdout).not.toMatch(/^cellseg-mock \d/);
    expect(verbose.code).toBe(1);
    // Past a timer's longest, Node fires after 1 ms: every run would end at once, judged too slow.
    const limit = await cli(['readiness', 'run', '--case-timeout-ms', '3000000000', '--', 'true']);
    expect(limit.code).toBe(2);
    expect(limit.stderr.trim()).toBe(
      'cellseg-mock readiness: --case-timeout-ms 3000000000: expected a whole number from 1 to 2147483647',
    );
    // A report folder it cannot write is said before the first run, not after the last.
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'cellseg-readiness-')), 'a-file');
    writeFileSync(file, '');
    const out = await cli(['readiness', 'run', '--out', file, '--', 'echo ran; exit 0']);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr.trim()).toBe(
      `cellseg-mock readiness: --out ${file}: cannot write the report there (ENOTDIR)`,
    );
    rmSync(path.dirname(file), { recursive: true });
    const caseName = await cli(['readiness', 'run', '--cases', 'rate-limited,meteor', '--', 'true']);
    expect(caseName.code).toBe(2);
    expect(caseName.stderr).toMatch(/^cellseg-mock readiness: unknown case meteor \(known: rate-limited, /);
  }, 60_000);
});

describe('cellseg-mock readiness run', () => {
  it('stops at a baseline that fails, with its output in the report, and exits 1', async () => {
    const out = mkdtempSync(path.join(os.tmpdir(), 'cellseg-readiness-'));
    try {
      const run = await cli([
        'readiness',
        'run',
        '--out',
        out,
        '--',
        'echo "no server at $CELLSEG_BASE_URL"; exit 3',
      ]);
      expect(run.code).toBe(1);
      const report = JSON.parse(readFileSync(path.join(out, 'readiness.json'), 'utf8')) as {
        baseline: { passed: boolean; exitCode: number; lastLines: string[] };
        cases: unknown[];
      };
      expect(report.baseline).toMatchObject({ passed: false, exitCode: 3 });
      expect(report.baseline.lastLines[0]).toMatch(/^no server at http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
      expect(report.cases).toEqual([]);
      expect(readFileSync(path.join(out, 'readiness.md'), 'utf8')).toContain(
        'The baseline (nothing armed) did not pass (exit 3)',
      );
      expect(readFileSync(path.join(out, 'junit.xml'), 'utf8')).toMatch(
        /failures="1"[\s\S]*baseline \(nothing armed\)/,
      );
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('a readiness run of a command that never calls the mock', () => {
  it('says at the top of its report that no case judged the client, and exits 3, not 0', async () => {
    const out = mkdtempSync(path.join(os.tmpdir(), 'cellseg-readiness-'));
    try {
      const run = await cli(['readiness', 'run', '--out', out, '--', 'true']);
      expect(run.code).toBe(3);
      const top = readFileSync(path.join(out, 'readiness.md'), 'utf8').split('\n\n')[2];
      expect(top).toMatch(/^No case judged the client: the command made no request a case sits on/);
      expect(run.stdout).toContain(top);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('a readiness run of a client that sends more requests than the journal keeps', () => {
  it('still sees its first calls: the operations, and the armed answers among them', async () => {
    const client = `
      const h = { authorization: 'Bearer ' + process.env.CELLSEG_API_KEY };
      const form = new FormData();
      form.append('file', new Blob([require('node:fs').readFileSync('fixtures/samples/cells.tif')]), 'c.tif');
      (async () => {
        const up = await fetch(process.env.CELLSEG_BASE_URL + '/upload', { method: 'POST', headers: h, body: form });
        for (let i = 0; i < 1100; i++) await (await fetch(process.env.CELLSEG_BASE_URL + '/models', { headers: h })).text();
        process.exit(up.ok ? 0 : 1);
      })();`;
    const report = await readinessRun({
      command: ['node', '-e', client],
      cases: ['part-url-expired', 'storage-cap'],
      parallel: 1,
      caseTimeoutMs: 60_000,
    });
    expect(report.baseline).toMatchObject({ passed: true, operations: ['uploadImage', 'listModels'] });
    // its one-request upload opens no resumable upload: no part URL to expire
    expect(report.cases.map((c) => [c.id, c.verdict, c.reaction])).toEqual([
      ['part-url-expired', 'does not apply', null],
      ['storage-cap', 'failed', 'stopped at the 402 (uploadImage)'],
    ]);
  }, 120_000);
});

describe('a readiness run of a client that opens a resumable upload with POST /upload {name, size}', () => {
  it('expires its part URLs, and tells the client completed although its part was refused', async () => {
    const client = `
      const h = { authorization: 'Bearer ' + process.env.CELLSEG_API_KEY, 'content-type': 'application/json' };
      const api = (path, body) => fetch(process.env.CELLSEG_BASE_URL + path, { method: 'POST', headers: h, body });
      (async () => {
        const opened = await (await api('/upload', JSON.stringify({ name: 'c.tif', size: 1000 }))).json();
        await new Promise((r) => setTimeout(r, 500));
        const put = await fetch(opened.upload.urls[0].url, { method: 'PUT', body: new Uint8Array(1000) });
        const done = await api('/upload/' + opened.image.id + '/complete');
        console.log('part', put.status, 'complete', done.status);
        process.exit(put.ok === done.ok ? 0 : 1);
      })();`;
    const report = await readinessRun({
      command: ['node', '-e', client],
      cases: ['part-url-expired'],
      parallel: 1,
      caseTimeoutMs: 60_000,
    });
    expect(report.baseline.lastLines).toEqual(['part 200 complete 202']);
    expect(report.cases.map((c) => [c.id, c.verdict, c.reaction, c.run?.lastLines])).toEqual([
      [
        'part-url-expired',
        'survived',
        'completed the upload although its parts were refused (422)',
        ['part 403 complete 422'],
      ],
    ]);
  }, 120_000);
});

describe('a readiness run of a client that gives its upload up when a part URL expired', () => {
  it('does not count a delete alone as meeting the case: the file is never sent again', async () => {
    const client = `
      const h = { authorization: 'Bearer ' + process.env.CELLSEG_API_KEY, 'content-type': 'application/json' };
      const api = (method, path, body) => fetch(process.env.CELLSEG_BASE_URL + path, { method, headers: h, body });
      (async () => {
        const opened = await (await api('POST', '/upload', JSON.stringify({ name: 'c.tif', size: 1000 }))).json();
        await new Promise((r) => setTimeout(r, 500));
        const put = await fetch(opened.upload.urls[0].url, { method: 'PUT', body: new Uint8Array(1000) });
        if (put.ok) process.exit((await api('POST', '/upload/' + opened.image.id + '/complete')).ok ? 0 : 1);
        const gone = await api('DELETE', '/upload/' + opened.image.id);
        console.log('part', put.status, 'delete', gone.status);
      })();`;
    const report = await readinessRun({
      command: ['node', '-e', client],
      cases: ['part-url-expired'],
      parallel: 1,
      caseTimeoutMs: 60_000,
    });
    const [expired] = report.cases;
    expect(expired.run?.lastLines).toEqual(['part 403 delete 200']);
    expect([expired.verdict, expired.reaction]).toEqual([
      'never reached',
      'gave the upload up (deleteUpload) and never sent the file again',
    ]);
    expect(expired.because).toMatch(
      /^the client gave the upload up \(deleteUpload\) and never sent the file again/,
    );
  }, 120_000);
});

describe('a readiness run of a client whose key a busy neighbour shares', () => {
  it('keeps every request, the armed answer among them, however fast they come', async () => {
    // The 429 armed on listModels, then 4000 more at 64 at a time: more between two reads of the
    // journal than it keeps (1000), the way a contract run with the same key sends them.
    const client = `
      const h = { authorization: 'Bearer ' + process.env.CELLSEG_API_KEY };
      const models = () => fetch(process.env.CELLSEG_BASE_URL + '/models', { headers: h });
      (async () => {
        const first = await models();
        let left = 4000;
        await Promise.all(Array.from({ length: 64 }, async () => {
          while (left-- > 0) await (await models()).arrayBuffer();
        }));
        console.log('first', first.status);
      })();`;
    const report = await readinessRun({
      command: ['node', '-e', client],
      cases: ['rate-limited'],
      parallel: 1,
      caseTimeoutMs: 60_000,
    });
    const [limited] = report.cases;
    expect([limited.verdict, limited.run?.lastLines]).toEqual(['survived', ['first 429']]);
    expect(limited.evidence).toEqual([expect.stringMatching(/GET \/api\/v1\/models → 429 \(armed\)/)]);
    expect(limited.run?.journal.filter((e) => e.operation_id === 'listModels')).toHaveLength(4001);
  }, 120_000);
});

describe('an interrupted readiness run', () => {
  it("ends the command's group and closes its mock: Ctrl-C never reaches a detached group", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cellseg-readiness-'));
    const pidFile = path.join(dir, 'pid');
    const runner = spawn(
      process.execPath,
      ['bin/cellseg-mock.js', 'readiness', 'run', '--out', dir, '--', `echo $$ > ${pidFile}; exec sleep 120`],
      // The mocks' temporary data folders go in the test's own folder, to see that none is left.
      { cwd: REPO_ROOT, stdio: 'ignore', env: { ...process.env, TMPDIR: dir } },
    );
    try {
      const deadline = Date.now() + 30_000;
      while (!existsSync(pidFile) || !readFileSync(pidFile, 'utf8').trim()) {
        if (Date.now() > deadline) throw new Error('the command never started');
        await new Promise((r) => setTimeout(r, 100));
      }
      const pid = Number(readFileSync(pidFile, 'utf8'));
      const ended = new Promise((r) => runner.once('exit', (code, signal) => r(signal)));
      runner.kill('SIGINT');
      expect(await ended).toBe('SIGINT');
      expect(readdirSync(dir).filter((name) => name.startsWith('cellseg-mock-'))).toEqual([]);
      // Killed, it is gone once its new parent has reaped it.
      await vi.waitFor(() => expect(() => process.kill(pid, 0)).toThrow(/ESRCH/), { timeout: 5000 });
    } finally {
      runner.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('runInGroup', () => {
  it('ends a command that hangs, and what it started, at the time limit', async () => {
    const started = Date.now();
    const outcome = await runInGroup(['echo started; sleep 30 & sleep 30'], {}, 500);
    expect(outcome.timedOut).toBe(true);
    expect(outcome.lastLines).toEqual(['started']);
    // The backgrounded sleep holds the output open: only killing the group lets the run end.
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('keeps the start of a line that never ends, without slowing the command', async () => {
    const outcome = await runInGroup(
      [`head -c 30000000 /dev/zero | tr '\\0' a; echo; echo done`],
      {},
      60_000,
    );
    expect(outcome).toMatchObject({ exitCode: 0, timedOut: false });
    expect(outcome.lastLines).toEqual([`${'a'.repeat(1000)}…`, 'done']);
  }, 60_000);

  it('ends a run whose command exited while a process that left its group holds the output', async () => {
    const detached = `require('node:child_process').spawn('sleep', ['20'], { detached: true, stdio: 'inherit' }).unref()`;
    const outcome = await runInGroup(['node', '-e', detached], {}, 15_000);
    expect(outcome).toMatchObject({ exitCode: 0, timedOut: false });
    expect(outcome.durationMs).toBeLessThan(10_000);
  }, 30_000);

  it('keeps the exit status and the last lines of a command that ends', async () => {
    const outcome = await runInGroup(
      ['node', '-e', 'for (let i = 0; i < 30; i++) console.log(i); process.exit(3)'],
      {},
      20_000,
    );
    expect(outcome).toMatchObject({ exitCode: 3, timedOut: false });
    expect(outcome.lastLines).toEqual(Array.from({ length: 20 }, (_, i) => String(i + 10)));
  });
});
