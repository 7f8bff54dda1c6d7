/**
 * Runs a script of the repository (`args[0]`) in a process of its own, as a partner's client of a
 * sandbox: the seeded keys, the sandbox's admin token, and its reports in a folder removed
 * afterwards. The sandbox tests run the contract suite through nginx with it.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { seed } from '../test-support/api-client.js';
import { REPO_ROOT } from '../test-support/launched-mock.js';
import type { Sandbox } from './launcher.js';

export async function contractChild(
  sandbox: Pick<Sandbox, 'adminToken'>,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  const reportDir = await mkdtemp(path.join(os.tmpdir(), 'sandbox-contract-'));
  try {
    const [main, other] = seed.organizations.map((o) => o.api_keys[0]);
    const tiny = seed.organizations.find((o) => o.api_keys[0].startsWith('sk_test_tiny'))!.api_keys[0];
    return await new Promise((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          CONTRACT_API_KEY: main,
          CONTRACT_OTHER_ORG_API_KEY: other,
          CONTRACT_TINY_API_KEY: tiny,
          CONTRACT_ADMIN_TOKEN: sandbox.adminToken,
          CONTRACT_REPORT_DIR: reportDir,
          ...env,
        },
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      child.on('close', (code) => resolve({ code, output }));
    });
  } finally {
    await rm(reportDir, { recursive: true, force: true });
  }
}
