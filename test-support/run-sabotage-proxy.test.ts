/**
 * `npm run sabotage -- <case>`: the broken build the docs' worked examples point the suite at. It
 * starts a mock and the case's proxy in front of it, says where and with which keys, breaks what the
 * case breaks (here: a request without a key is let through), and takes the mock with it on stop.
 */
import { spawn, spawnSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, REPO_ROOT } from './launched-mock.js';

const children: Array<ReturnType<typeof spawn>> = [];
afterAll(() => children.forEach((child) => child.kill('SIGKILL')));

const reachable = (url: string) =>
  fetch(url).then(
    () => true,
    () => false,
  );

describe('npm run sabotage', () => {
  it('starts a mock behind the case proxy, prints both and the keys, and stops both', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test-support/run-sabotage-proxy.ts', 'no-auth'],
      {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.push(child);
    let text = '';
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    const banner = await new Promise<RegExpExecArray>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        const match = /listening on (\S+), in front of (\S+) \(a mock started here\)[\s\S]*Ctrl-C/.exec(text);
        if (match) resolve(match);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code} before its banner:\n${text}`)));
    });
    const [, proxy, mock] = banner;
    expect(text).toContain('CONTRACT_API_KEY=sk_test_acme_');

    // The mock refuses a request without a key; the broken build lets it through.
    expect((await fetch(`${mock}/api/v1/models`)).status).toBe(401);
    expect((await fetch(`${proxy}/api/v1/models`)).status).toBe(200);

    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(await eventually(async () => !(await reachable(`${mock}/api/v1/models`)), 5_000)).toBe(true);
    expect(await reachable(`${proxy}/api/v1/models`)).toBe(false);
  });

  it('says so in one line when the port is taken', async () => {
    const taken = http.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = String((taken.address() as AddressInfo).port);
    try {
      const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', 'test-support/run-sabotage-proxy.ts', 'no-auth', '--port', port],
          { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
        );
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
        child.on('close', (code) => resolve({ code, stderr }));
      });
      expect(run.code).toBe(1);
      expect(run.stderr.trim()).toBe(
        `sabotage: cannot listen on port ${port}: listen EADDRINUSE: address already in use 127.0.0.1:${port}`,
      );
    } finally {
      taken.close();
    }
  });

  it('names an unknown case and lists the cases, with the clauses each breaks', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'test-support/run-sabotage-proxy.ts', 'no-such-case'],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("sabotage: no case 'no-such-case'");
    expect(run.stderr).toMatch(/confluency-fraction\s+breaks MEAS-05/);
  });
});
