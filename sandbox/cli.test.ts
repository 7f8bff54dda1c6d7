import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ACME_KEY } from '../test-support/api-client.js';
import { REPO_ROOT } from '../test-support/launched-mock.js';

/**
 * `npm run sandbox` as a person or a supervisor runs it: what it prints, and what a SIGTERM to npm
 * leaves behind (nothing). npm passes the signal to its child; the script execs node, since a `sh -c`
 * between them would die of it and leave the sandbox running.
 */
describe('npm run sandbox', () => {
  it('prints the URL, the token, the keys and the logs, and stops every piece on SIGTERM to npm', async () => {
    const child = spawn('npm', ['run', '--silent', 'sandbox', '--', '--instances', '1'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        if (stdout.includes('Ctrl-C stops')) resolve();
      });
      void exited.then((code) =>
        reject(new Error(`the sandbox exited (${code}) before it was ready:\n${stderr}`)),
      );
    });

    expect(stderr).toMatch(/^PostgreSQL: starting a throwaway server\.\.\.$/m);
    const pid = Number(
      /^sandbox-1: ready at http:\/\/127\.0\.0\.1:\d+ \(pid (\d+), log .*sandbox-1\.log\)$/m.exec(stderr)![1],
    );
    const url = /URL: +(http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)![1];
    const token = /Admin token: +(\S+)/.exec(stdout)![1];
    expect(stdout).toContain('API key:      sk_test_acme_');
    const logs = [...stdout.matchAll(/^ {2}(postgresql|sandbox-1|nginx|nginx requests) +(\/\S+)$/gm)].map(
      (m) => m[2],
    );
    expect(logs).toHaveLength(4);
    for (const file of logs) expect(existsSync(file), file).toBe(true);

    const models = await fetch(`${url}/api/v1/models`, {
      headers: { authorization: `Bearer ${ACME_KEY}` },
    });
    expect(models.status).toBe(200);
    const control = await fetch(`${url}/__mock/organizations`);
    expect(control.status).toBe(401);
    const withToken = await fetch(`${url}/__mock/organizations`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(withToken.status).toBe(200);

    // An instance that dies is reported, with its log, and started again.
    process.kill(pid, 'SIGKILL');
    await new Promise<void>((resolve) => {
      const seen = () =>
        /^! sandbox-1 was killed by SIGKILL; starting it again in 0\.25 s \(restart 1 in a row\); its log: \S+sandbox-1\.log$/m.test(
          stderr,
        ) &&
        /^sandbox-1: started again \(pid \d+\)$/m.test(stderr) &&
        resolve();
      seen();
      child.stderr.on('data', seen);
    });
    const again = await fetch(`${url}/api/v1/models`, { headers: { authorization: `Bearer ${ACME_KEY}` } });
    expect(again.status).toBe(200);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toContain('Stopped.');
    for (const file of logs) expect(existsSync(file), file).toBe(false);
    await expect(fetch(`${url}/__mock/health`)).rejects.toThrow();
  });

  it('names a bad --instances before starting anything', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'sandbox/cli.ts', '--instances', 'many'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr.trim()).toBe("error: --instances must be a whole number from 1 to 32, got 'many'");
  });
});
