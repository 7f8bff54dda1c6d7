import { runBash, type BashRun } from '../../../test-support/run-bash.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import JSZip from 'jszip';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningMock } from '../../server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const BIN = path.join(ROOT, 'bin', 'cellseg-mock.js');
const ACME_KEY = 'sk_test_acme_4f9a1c7e2b8d4a6f9c3e5b7d1a2c4e6f';
const EXPORTS = ['measurements.csv', 'rois.geojson', 'rois.zip', 'overlay.png'];

/** The one bash block between docs/walkthrough.md's markers, exactly as a partner pastes it. */
async function walkthroughScript(): Promise<string> {
  const readme = await readFile(path.join(ROOT, 'docs', 'walkthrough.md'), 'utf8');
  const start = readme.indexOf('<!-- walkthrough:start -->');
  const end = readme.indexOf('<!-- walkthrough:end -->');
  expect(start, 'walkthrough markers').toBeGreaterThanOrEqual(0);
  expect(end).toBeGreaterThan(start);
  const blocks = [...readme.slice(start, end).matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  expect(blocks, 'exactly one bash block between the walkthrough markers').toHaveLength(1);
  return blocks[0];
}

/** Runs the block the way the README suggests for scripts: bash -euo pipefail, from the checkout. */
async function runWalkthrough(script: string, env: Record<string, string>, dir: string): Promise<BashRun> {
  const file = path.join(dir, 'walkthrough.sh');
  await writeFile(file, script);
  return runBash([file], { cwd: ROOT, env });
}

// Each test spawns bash or the bin and waits for real work; a loaded CI machine needs the room.
describe('the walkthrough (docs/walkthrough.md)', { timeout: 120_000 }, () => {
  let mock: RunningMock;
  let script: string;
  const dirs: string[] = [];
  const tempDir = async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'cellseg-walkthrough-'));
    dirs.push(dir);
    return dir;
  };

  beforeAll(async () => {
    script = await walkthroughScript();
    mock = await startInstantMock();
  });
  afterAll(async () => {
    await mock?.close();
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it('runs end to end: exports whose rows match the cell count, a share that opens then stops', async () => {
    const out = await tempDir();
    const run = await runWalkthrough(script, { BASE: `${mock.url}/api/v1`, OUT: out }, out);
    expect(run.code, `walkthrough failed\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`).toBe(0);

    for (const name of EXPORTS) {
      expect((await stat(path.join(out, name))).size, name).toBeGreaterThan(0);
    }
    const prediction = JSON.parse(await readFile(path.join(out, 'prediction.json'), 'utf8'));
    expect(prediction.status).toBe('COMPLETED');
    const cells: number = prediction.cell_count;
    expect(cells).toBeGreaterThan(0);

    const rows = parse(await readFile(path.join(out, 'measurements.csv')), { columns: true }) as Array<
      Record<string, string>
    >;
    expect(rows).toHaveLength(cells);
    expect(new Set(rows.map((r) => r.segmentation_id))).toEqual(new Set([prediction.segmentation_id]));
    const areas = parse(await readFile(path.join(out, 'areas.csv')), { columns: true }) as object[];
    expect(areas).toHaveLength(cells);
    expect(Object.keys(areas[0])).toEqual(['roi_index', 'area_px']);

    const geojson = JSON.parse(await readFile(path.join(out, 'rois.geojson'), 'utf8'));
    expect(geojson.type).toBe('FeatureCollection');
    expect(geojson.features).toHaveLength(cells);
    const zip = await JSZip.loadAsync(await readFile(path.join(out, 'rois.zip')));
    expect(Object.keys(zip.files).filter((n) => n.endsWith('.roi'))).toHaveLength(cells);
    const png = await readFile(path.join(out, 'overlay.png'));
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));

    expect(run.stdout).toContain(`share: ${mock.config.shareBaseUrl}/share/`);
    expect(run.stdout).toContain('(opens with HTTP 200)');
    expect(run.stdout).toContain('after revoking: HTTP 404');
    expect(run.stdout).toMatch(/part 1: ETag: "[0-9a-f]{32}"/);
    expect(run.stdout).toMatch(/part 2: ETag: "[0-9a-f]{32}"/);
    expect(run.stdout).toContain('walkthrough complete');
  });

  it('survives a part URL that expired before its PUT: a readiness run of it opens a new upload', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'walkthrough.sh');
    await writeFile(file, script);
    const readiness = spawn(
      process.execPath,
      [
        BIN,
        'readiness',
        'run',
        '--cases',
        'part-url-expired',
        '--out',
        dir,
        '--',
        'bash',
        '-c',
        `BASE=$CELLSEG_BASE_URL KEY=$CELLSEG_API_KEY exec bash -euo pipefail ${file}`,
      ],
      { cwd: ROOT, stdio: 'ignore' },
    );
    expect(await new Promise((resolve) => readiness.on('close', resolve))).toBe(0);
    const report = JSON.parse(await readFile(path.join(dir, 'readiness.json'), 'utf8'));
    const [expired] = report.cases;
    expect([expired.id, expired.verdict, expired.reaction]).toEqual([
      'part-url-expired',
      'survived',
      'opened a new upload for fresh part URLs',
    ]);
    // which part meets the expired URL depends on when the case moved the clock against the
    // script's first PUT; the new upload then sends every part again from its first
    expect(expired.run.lastLines.join('\n')).toMatch(
      /part \d+: its URL expired[\s\S]*image: [\s\S]*part 1: ETag/,
    );
  });

  it('fails, and stops there, when a step of it breaks', async () => {
    const broken = script.replace('rois.geojson rois.zip', 'rois.json rois.zip');
    expect(broken).not.toBe(script);
    const out = await tempDir();
    const run = await runWalkthrough(broken, { BASE: `${mock.url}/api/v1`, OUT: out }, out);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('404');
    expect(run.stdout).not.toContain('share:');
    expect(run.stdout).not.toContain('walkthrough complete');
  });
});

describe('the cellseg-mock command', { timeout: 120_000 }, () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  });

  function launch(args: string[]) {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const output = () => ({ stdout, stderr });
    return { child, exited, output };
  }

  /** Starts the bin on a free port and resolves with the URL its banner prints. */
  async function start(extra: string[] = []) {
    const run = launch(['start', '--port', '0', '--log-level', 'silent', ...extra]);
    const url = await new Promise<string>((resolve, reject) => {
      run.child.stdout!.on('data', () => {
        const match = /listening on (http:\/\/\S+)/.exec(run.output().stdout);
        if (match) resolve(match[1]);
      });
      void run.exited.then((code) => reject(new Error(`exited ${code}: ${run.output().stderr}`)));
    });
    return { ...run, url };
  }

  it('--help and start --help list the options with their environment variables', async () => {
    const runs = [['--help'], ['start', '--help'], ['help']].map((args) => ({ args, run: launch(args) }));
    for (const { args, run } of runs) {
      expect(await run.exited, args.join(' ')).toBe(0);
      expect(run.output().stdout).toContain('cellseg-mock start');
      expect(run.output().stdout).toMatch(/--port\s+PORT/);
      expect(run.output().stdout).toMatch(/--prediction-run-delay-ms\s+PREDICTION_RUN_DELAY_MS/);
    }
    const bad = launch(['start', '--no-such-option']);
    expect(await bad.exited).toBe(2);
    expect(bad.output().stderr).toContain("unknown option '--no-such-option'");
  });

  it('starts, answers the health route (open even with an admin token) and exits 0 on SIGTERM', async () => {
    const mock = await start(['--admin-token', 'walkthrough-admin']);
    // The banner points a newcomer at the page and the reference, and both are there.
    for (const [label, path] of [
      ['Dashboard', '/__mock/ui'],
      ['Reference', '/docs'],
    ]) {
      expect(mock.output().stdout).toMatch(new RegExp(`^  ${label}: +${mock.url}${path}$`, 'm'));
      expect((await fetch(`${mock.url}${path}`)).status).toBe(200);
    }
    const health = await fetch(`${mock.url}/__mock/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    expect((await fetch(`${mock.url}/__mock/organizations`)).status).toBe(401);
    const models = await fetch(`${mock.url}/api/v1/models`, {
      headers: { authorization: `Bearer ${ACME_KEY}` },
    });
    expect(models.status).toBe(200);
    mock.child.kill('SIGTERM');
    expect(await mock.exited).toBe(0);
    expect(mock.output().stderr).toContain('Stopped.');
  });

  it('lets an in-flight upload finish on SIGTERM; a second signal exits at once', async () => {
    const mock = await start();
    const tiff = await readFile(path.join(ROOT, 'fixtures', 'corpus', 'gray-8bit.tif'));
    const boundary = 'walkthrough-boundary';
    const multipart = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.tif"\r\n` +
          'Content-Type: image/tiff\r\n\r\n',
      ),
      tiff,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    // A body sent 100 ms a chunk; `sending` resolves once the client is writing it, so the server
    // has the request in hand before the signal arrives.
    const slowBody = (chunks: Buffer[], forever = false) => {
      let i = 0;
      let started: () => void;
      const sending = new Promise<void>((resolve) => (started = resolve));
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (i === 2) started();
          await new Promise((r) => setTimeout(r, 100));
          if (i < chunks.length) {
            controller.enqueue(chunks[i++]);
          } else if (forever) {
            controller.enqueue(new Uint8Array(1));
            i++;
          } else {
            controller.close();
          }
        },
      });
      return { body, sending };
    };
    const upload = (url: string, body: ReadableStream<Uint8Array>, signal?: AbortSignal) =>
      fetch(`${url}/api/v1/upload`, {
        method: 'POST',
        body,
        duplex: 'half',
        signal,
        headers: {
          authorization: `Bearer ${ACME_KEY}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
      } as RequestInit);

    const chunks = Array.from({ length: 8 }, (_, k) =>
      multipart.subarray((k * multipart.length) / 8, ((k + 1) * multipart.length) / 8),
    );
    const slow = slowBody(chunks);
    const inFlight = upload(mock.url, slow.body);
    await slow.sending;
    mock.child.kill('SIGTERM');
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    const uploaded = (await answer.json()) as { image: { upload_status: string } };
    expect(uploaded.image.upload_status).toBe('ready');
    expect(await mock.exited).toBe(0);

    const stuck = await start();
    const abort = new AbortController();
    const endless = slowBody([], true);
    const never = upload(stuck.url, endless.body, abort.signal).catch(() => undefined);
    await endless.sending;
    stuck.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    expect(stuck.child.exitCode, 'still waiting for the endless upload').toBeNull();
    stuck.child.kill('SIGINT');
    expect(await stuck.exited).toBe(1);
    expect(stuck.output().stderr).toContain('SIGINT while stopping');
    abort.abort();
    await never;
  });
});
