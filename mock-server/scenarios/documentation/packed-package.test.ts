/**
 * What a partner gets from `npm pack`: the tarball, installed into an empty folder, starts with
 * `npx cellseg-mock` and with `import { startMock } from 'cellseg-mock'`, and the vitest and jest
 * examples of examples/ pass against it. The slowest file of the unit project (a build, an install
 * into an empty folder, two test runners): SKIP_PACKED_PACKAGE_TEST=1 leaves it out of a quick
 * local loop; CI runs it on both Node lines.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { builtIsCurrent } from '../../../bin/dist-status.js';
import { ACME_KEY } from '../../../test-support/api-client.js';
import { REPO_ROOT } from '../../../test-support/launched-mock.js';
import { readmeRoundTrip } from '../../../test-support/readme-round-trip.js';
import { runBash } from '../../../test-support/run-bash.js';

const PACKAGE_FILES = [
  'package.json',
  'README.md',
  'tsconfig.json',
  'tsconfig.build.json',
  'bin',
  'docs',
  'mock-server',
  'contract-tests',
  'fixtures/generator',
  'openapi',
  'fixtures/seed.json',
  'fixtures/samples/cells.tif',
];
const folders: string[] = [];

function run(command: string, args: string[], cwd: string, timeoutMs = 900_000) {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    // Plain text whatever CI sets (FORCE_COLOR): the runners' summaries are matched below.
    env: { ...process.env, npm_config_update_notifier: 'false', NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  // eslint-disable-next-line no-control-regex -- removes the ANSI colour codes a runner may still print
  const output = `${result.stdout}\n${result.stderr}`.replace(/\u001b\[[0-9;]*m/g, '');
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} exited ${result.status}:\n${output}`);
  return output;
}

/**
 * `npm pack` in a copy of the package's files, so the checkout's own dist/ is never rebuilt under
 * other tests. When the checkout's dist/ is current for its sources (the launcher's check; in CI
 * `npm ci` has just built it), that build goes into the tarball as it is: `prepare` would make the
 * same files again, at 12 s of CPU (tsc's declarations, esbuild). Otherwise `prepare` builds.
 */
function packTarball(): string {
  const staging = mkdtempSync(path.join(os.tmpdir(), 'cellseg-pack-'));
  folders.push(staging);
  const reuseBuild = builtIsCurrent(pathToFileURL(`${REPO_ROOT}/`));
  for (const file of reuseBuild ? [...PACKAGE_FILES, 'dist'] : PACKAGE_FILES) {
    mkdirSync(path.dirname(path.join(staging, file)), { recursive: true });
    cpSync(path.join(REPO_ROOT, file), path.join(staging, file), {
      recursive: true,
      filter: (source) => !source.includes(`${path.sep}node_modules`),
    });
  }
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(staging, 'node_modules'), 'dir');
  run('npm', ['pack', '--pack-destination', staging, ...(reuseBuild ? ['--ignore-scripts'] : [])], staging);
  const tarball = readdirSync(staging).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error('npm pack made no tarball');
  return path.join(staging, tarball);
}

async function startWithNpx(cwd: string): Promise<{ url: string; stop: () => void }> {
  const child = spawn('npx', ['cellseg-mock', 'start', '--port', '0', '--log-level', 'silent'], {
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  let text = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const match = /listening on (http:\/\/\S+)/.exec(text);
      if (match) resolve(match[1]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) =>
      reject(new Error(`npx cellseg-mock exited ${code} before listening:\n${text}`)),
    );
  }).catch((err) => {
    stop();
    throw err;
  });
  return { url, stop };
}

afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

describe.skipIf(process.env.SKIP_PACKED_PACKAGE_TEST === '1')('the packed package', () => {
  it('installs into an empty folder and starts with npx, with the import, and under vitest and jest', async () => {
    const tarball = packTarball();
    const consumer = mkdtempSync(path.join(os.tmpdir(), 'cellseg-consumer-'));
    folders.push(consumer);
    writeFileSync(
      path.join(consumer, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], consumer);
    // What installing the package brings beside it, as docs/running.md states it.
    const installed = readdirSync(path.join(consumer, 'node_modules'))
      .filter((name) => !name.startsWith('.') && name !== 'cellseg-mock')
      .flatMap((name) =>
        name.startsWith('@') ? readdirSync(path.join(consumer, 'node_modules', name)) : [name],
      );
    const stated = /installs (\d+) packages/.exec(
      readFileSync(path.join(REPO_ROOT, 'docs', 'running.md'), 'utf8'),
    );
    expect(Number(stated?.[1]), `installed: ${installed.join(', ')}`).toBe(installed.length);

    expect(run('npx', ['cellseg-mock', '--version'], consumer)).toContain('cellseg-mock 0.1.0');
    const help = run('npx', ['cellseg-mock', '--help'], consumer);
    expect(help).toContain('Usage: cellseg-mock start [options]');
    expect(help).not.toMatch(/npm start|a checkout only/);
    // Every page the README links is in the package beside it.
    for (const [, page] of readFileSync(
      path.join(consumer, 'node_modules', 'cellseg-mock', 'README.md'),
      'utf8',
    ).matchAll(/\]\((docs\/[^)#]+)/g))
      expect(existsSync(path.join(consumer, 'node_modules', 'cellseg-mock', page)), page).toBe(true);

    const viaNpx = await startWithNpx(consumer);
    try {
      const models = await fetch(`${viaNpx.url}/api/v1/models`, {
        headers: { authorization: `Bearer ${ACME_KEY}` },
      });
      expect(models.status).toBe(200);
      // The parts of the bundle that load on first use, and the files the build copies beside it.
      const invalid = await fetch(`${viaNpx.url}/api/v1/predict`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ACME_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ image_id: 'not-a-uuid' }),
      });
      expect(invalid.status).toBe(422);
      expect(await (await fetch(`${viaNpx.url}/openapi.yaml`)).text()).toMatch(/^openapi: 3\.1/m);
      const controlDocument = await fetch(`${viaNpx.url}/__mock/openapi.json`);
      expect(((await controlDocument.json()) as { openapi: string }).openapi).toBe('3.1.0');
      const dashboardScript = await fetch(`${viaNpx.url}/__mock/ui/assets/dashboard.js`);
      expect(dashboardScript.status).toBe(200);
      expect(dashboardScript.headers.get('content-type')).toContain('javascript');
      // /docs renders from the copy the build made: no swagger-ui-dist, no analytics installed.
      expect((await fetch(`${viaNpx.url}/docs`)).status).toBe(200);
      expect((await fetch(`${viaNpx.url}/docs/swagger-ui-bundle.js`)).status).toBe(200);
      expect(existsSync(path.join(consumer, 'node_modules', 'swagger-ui-dist'))).toBe(false);
      expect(existsSync(path.join(consumer, 'node_modules', '@scarf'))).toBe(false);

      // The README's first round trip, pasted as written in a folder that has only the package.
      const trip = await runBash(['-c', await readmeRoundTrip(REPO_ROOT)], {
        cwd: consumer,
        env: { BASE: `${viaNpx.url}/api/v1` },
      });
      expect(trip.code, `round trip failed\n${trip.stdout}\n${trip.stderr}`).toBe(0);
      expect(trip.stdout.split('\n')[0]).toMatch(/^image_name,image_width,image_height,/);

      // A partner's contract recorded from that run and verified against the same mock, no checkout.
      run(
        'npx',
        [
          'cellseg-mock',
          'contract',
          'record',
          '--org',
          ACME_KEY,
          '--out',
          'partner.json',
          '--base-url',
          viaNpx.url,
        ],
        consumer,
      );
      const verified = run(
        'npx',
        ['cellseg-mock', 'contract', 'verify', 'partner.json', '--base-url', viaNpx.url, '--profile', 'mock'],
        consumer,
      );
      expect(verified).toMatch(/Partner contract: [1-9]\d* interactions pass, 0 fail/);
      expect(verified).toContain('exportMeasurementsCsv');
      expect(existsSync(path.join(consumer, 'reports', 'partner.md'))).toBe(true);

      // What that client has met, and a readiness run of a one-line client through one case.
      const exposure = run(
        'npx',
        ['cellseg-mock', 'readiness', '--org', ACME_KEY, '--base-url', viaNpx.url],
        consumer,
      );
      expect(exposure).toContain('uploadImage');
      const client =
        "fetch(process.env.CELLSEG_BASE_URL + '/models', { headers: { authorization: 'Bearer ' + process.env.CELLSEG_API_KEY } }).then((r) => process.exit(r.ok ? 0 : 1))";
      const readiness = spawnSync(
        'npx',
        [
          'cellseg-mock',
          'readiness',
          'run',
          '--cases',
          'unavailable',
          '--out',
          'readiness',
          '--',
          process.execPath,
          '-e',
          client,
        ],
        { cwd: consumer, encoding: 'utf8', timeout: 300_000 },
      );
      expect(readiness.status, `${readiness.stdout}\n${readiness.stderr}`).toBe(1);
      const report = JSON.parse(readFileSync(path.join(consumer, 'readiness', 'readiness.json'), 'utf8')) as {
        cases: Array<{ id: string; verdict: string }>;
      };
      // The one-liner treats the injected 503 as fatal: readiness says so.
      expect(report.cases.find((c) => c.id === 'unavailable')?.verdict).toBe('failed');
    } finally {
      viaNpx.stop();
    }

    writeFileSync(
      path.join(consumer, 'import.mjs'),
      [
        "import { startMock } from 'cellseg-mock';",
        'const mock = await startMock();',
        'const r = await fetch(`${mock.apiUrl}/models`, { headers: { authorization: `Bearer ${mock.apiKey}` } });',
        'console.log(JSON.stringify({ status: r.status, seededModels: mock.models.length }));',
        'await mock.close();',
      ].join('\n'),
    );
    const imported = JSON.parse(run(process.execPath, ['import.mjs'], consumer).trim().split('\n')[0]) as {
      status: number;
      seededModels: number;
    };
    expect(imported.status).toBe(200);
    expect(imported.seededModels).toBeGreaterThan(0);

    for (const runner of ['vitest', 'jest']) {
      const folder = path.join(consumer, `${runner}-example`);
      mkdirSync(folder);
      for (const file of readdirSync(path.join(REPO_ROOT, 'examples', runner)).filter((f) =>
        f.includes('.test.'),
      ))
        cpSync(path.join(REPO_ROOT, 'examples', runner, file), path.join(folder, file));
    }
    const bin = (relative: string) => path.join(REPO_ROOT, 'node_modules', relative);
    expect(
      run(process.execPath, [bin('vitest/vitest.mjs'), 'run', '--root', 'vitest-example'], consumer),
    ).toMatch(/Tests\s+\S*2 passed/);
    expect(
      run(
        process.execPath,
        [
          '--experimental-vm-modules',
          bin('jest/bin/jest.js'),
          '--rootDir',
          'jest-example',
          '--testMatch',
          '**/*.test.mjs', // as examples/jest/package.json says: jest 29 looks for .js/.ts by default
        ],
        consumer,
      ),
    ).toMatch(/Tests:\s+2 passed, 2 total/);
  }, 1_800_000);
});
