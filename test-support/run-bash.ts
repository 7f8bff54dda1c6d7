import { spawn } from 'node:child_process';

export interface BashRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a snippet the way the docs tell people to run theirs: `bash -euo pipefail`, with `args` a
 * file or `-c <script>`. The variables the snippets set for themselves (KEY, BASE, OUT) are never
 * taken from the developer's shell, only from `env`.
 */
export async function runBash(
  args: string[],
  { cwd, env }: { cwd: string; env: Record<string, string> },
): Promise<BashRun> {
  const { KEY: _key, OUT: _out, BASE: _base, ...inherited } = process.env;
  const child = spawn('bash', ['-euo', 'pipefail', ...args], {
    cwd,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}
