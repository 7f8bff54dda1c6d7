import { Writable } from 'node:stream';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { hasOsMemoryCeiling } from './child-command.js';
import { ChildProcessPool } from './child-process-pool.js';
import { DecoderCrashed, DecoderTaskError } from './decoder-crashed.js';

const MiB = 1024 ** 2;
/**
 * The misbehaving tasks and this pool's child-main.ts, bundled from the sources into a folder of
 * their own: a JavaScript tasks module beside a child-main.js runs under that one (`childEntry`),
 * so the children of these tests start without tsx's loader, which compiled both again in each of
 * them (about a quarter of a second of CPU a child, and the file starts about twenty).
 */
const bundle = mkdtempSync(join(tmpdir(), 'misbehaving-child-'));
let tasksModule = '';
beforeAll(async () => {
  await build({
    entryPoints: {
      'child-main': fileURLToPath(new URL('./child-main.ts', import.meta.url)),
      tasks: fileURLToPath(
        new URL('../../../test-support/decoder-pool/misbehaving-tasks.ts', import.meta.url),
      ),
    },
    outdir: bundle,
    bundle: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'error',
  });
  tasksModule = join(bundle, 'tasks.js');
});
afterAll(() => rmSync(bundle, { recursive: true, force: true }));
const pools: ChildProcessPool[] = [];
const newPool = (o: Partial<ConstructorParameters<typeof ChildProcessPool>[0]> = {}) => {
  const pool = new ChildProcessPool({
    tasksModule,
    size: 1,
    memoryCeilingBytes: 512 * MiB,
    timeBudgetMs: 60_000,
    ...o,
  });
  pools.push(pool);
  return pool;
};
afterAll(() => Promise.all(pools.map((p) => p.close())));

/** A stderr for a pool's children that keeps what they write. */
function collected(): Writable & { text(): string } {
  let written = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written += chunk.toString('utf8');
      done();
    },
  });
  return Object.assign(sink, { text: () => written });
}

const echo = (pool: ChildProcessPool, value: unknown) =>
  pool.run<{ value: unknown; pid: number }>('echo', value);
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the job to fail');
    },
    (err: unknown) => err as Error,
  );

describe('ChildProcessPool', () => {
  it('runs jobs in another process and carries typed arrays back', async () => {
    const pool = newPool();
    const r = await echo(pool, { data: Uint16Array.of(1, 65535) });
    expect(r.pid).not.toBe(process.pid);
    expect(r.value).toEqual({ data: Uint16Array.of(1, 65535) });
  });

  it("carries a task's own error back by name, message and kind; the child stays", async () => {
    const pool = newPool();
    const { pid } = await echo(pool, 1);
    const err = await failure(pool.run('fail', 'corrupt: strip 3 of 8'));
    expect(err).toBeInstanceOf(DecoderTaskError);
    expect(err).toMatchObject({ name: 'TiffError', message: 'corrupt: strip 3 of 8', kind: 'corrupt' });
    expect((await echo(pool, 2)).pid).toBe(pid);
  });

  it('fails only the job whose child crashed, with DecoderCrashed, and replaces the child', async () => {
    const pool = newPool({ size: 2 });
    const other = pool.run('waitForAbort', null, AbortSignal.timeout(60_000)).catch(() => 'ended');
    const err = await failure(pool.run('abort', null));
    expect(err).toBeInstanceOf(DecoderCrashed);
    expect(err.message).toMatch(/the decoder process stopped \(SIGABRT\) while reading this file/);
    expect(err.message).toContain('512 MiB');
    expect(await echo(pool, 'after')).toMatchObject({ value: 'after' });
    // the job in the other child was not touched
    const settled = await Promise.race([other, Promise.resolve('still running')]);
    expect(settled).toBe('still running');
  });

  it.skipIf(!hasOsMemoryCeiling())(
    'holds a child to its memory ceiling: memory past it is refused inside the child or ends it',
    async () => {
      const pool = newPool({ memoryCeilingBytes: 512 * MiB });
      const err = await failure(pool.run('allocate', 2048));
      if (err instanceof DecoderCrashed) expect(err.message).toMatch(/the decoder process stopped/);
      else expect(err.message).toMatch(/too large to decode within this server's memory limit of 512 MiB/);
      // well under the ceiling still works, in the same or a new child
      await expect(pool.run('allocate', 64)).resolves.toBe(64);
    },
  );

  it("passes a child's stderr on, but not V8's report of a heap that ran out (the job says why)", async () => {
    const stderr = collected();
    const pool = newPool({ stderr });
    const err = await failure(pool.run('fillHeap', 'a line of the child before it ran out'));
    expect(err.message).toMatch(/memory limit of 512 MiB/);
    await new Promise((resolve) => setTimeout(resolve, 200)); // the pipe's last lines
    expect(stderr.text()).toContain('a line of the child before it ran out\n');
    expect(stderr.text()).not.toMatch(/FATAL ERROR|Last few GCs|OOMErrorHandler|Native stack/);
  });

  it('gives a job that ran out of memory in a used child one fresh child; one that fails there fails', async () => {
    const pool = newPool();
    const run = () => pool.run<{ pid: number }>('outOfMemoryWhenUsed', null);
    const first = await run();
    // The same child, now used, cannot make a thread: the job runs again in a new child.
    const second = await run();
    expect(second.pid).not.toBe(first.pid);
    // Out of memory in a fresh child, or again after its retry: the job fails, said as too large.
    const fresh = newPool();
    const inFresh = await failure(fresh.run('outOfMemory', null));
    expect(inFresh.message).toMatch(/too large to decode within this server's memory limit/);
    await echo(fresh, 'now used');
    const afterRetry = await failure(fresh.run('outOfMemory', null));
    expect(afterRetry.message).toMatch(/too large to decode within this server's memory limit/);
  });

  it('kills a child that runs past its time budget and says so', async () => {
    const pool = newPool({ timeBudgetMs: 1500 });
    await echo(pool, 'warm');
    const err = await failure(pool.run('spin', null));
    expect(err).toBeInstanceOf(DecoderCrashed);
    expect(err.message).toContain('took longer than 1.5 s');
    await expect(echo(pool, 'next')).resolves.toMatchObject({ value: 'next' });
  });

  it('cancels a running job through its signal; the child that stopped it stays', async () => {
    const pool = newPool({ cancelGraceMs: 600_000 });
    const { pid } = await echo(pool, 0);
    const polite = new AbortController();
    const a = failure(pool.run('waitForAbort', null, polite.signal));
    polite.abort();
    expect((await a).name).toBe('AbortError');
    expect((await echo(pool, 1)).pid).toBe(pid);
  });

  it('kills, after a grace period, a child that ignores the cancel', async () => {
    const pool = newPool({ cancelGraceMs: 300 });
    const { pid } = await echo(pool, 0);
    const rude = new AbortController();
    const started = join(mkdtempSync(join(tmpdir(), 'pool-')), 'started');
    const b = failure(pool.run('ignoreAbort', started, rude.signal));
    while (!existsSync(started)) await new Promise((r) => setTimeout(r, 20));
    rude.abort();
    expect((await b).name).toBe('AbortError');
    expect((await echo(pool, 2)).pid).not.toBe(pid);
  });

  it('fails the waiting jobs, instead of respawning forever, when its children cannot start', async () => {
    const stderr = collected();
    const pool = newPool({ tasksModule: 'file:///no/such/tasks-module.ts', stderr });
    await expect(echo(pool, 1)).rejects.toThrow(/the decoder processes cannot start/);
    await expect(echo(pool, 2)).rejects.toThrow(/the decoder processes cannot start/);
    expect(pool.childPids).toEqual([]);
    // What a child that cannot start says is passed on, for whoever reads the server's stderr.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stderr.text()).toContain("Cannot find module '/no/such/tasks-module.ts'");
  });

  it('queues jobs beyond its size and runs them all', async () => {
    const pool = newPool({ size: 2 });
    const results = await Promise.all([1, 2, 3, 4, 5].map((v) => echo(pool, v)));
    expect(results.map((r) => r.value)).toEqual([1, 2, 3, 4, 5]);
    expect(new Set(results.map((r) => r.pid)).size).toBeLessThanOrEqual(2);
  });

  it('an idle child stops after idleMs, handing its memory back; the next job starts another', async () => {
    const pool = newPool({ idleMs: 50 });
    const first = (await echo(pool, 0)).pid;
    await new Promise<void>((resolve) => {
      const check = () => (pool.childPids.length === 0 ? resolve() : setTimeout(check, 20));
      check();
    });
    expect(() => process.kill(first, 0)).toThrow();
    expect((await echo(pool, 1)).pid).not.toBe(first);
  });

  it('recycle() hands back fresh children; close() leaves none running', async () => {
    const pool = newPool();
    const before = (await echo(pool, 0)).pid;
    await pool.recycle();
    const after = (await echo(pool, 0)).pid;
    expect(after).not.toBe(before);
    await pool.close();
    expect(pool.childPids).toEqual([]);
    expect(() => process.kill(after, 0)).toThrow();
    await expect(echo(pool, 1)).rejects.toThrow(/closed/);
  });
});

describe('the entry a child starts from', () => {
  it('a JavaScript tasks module beside a child-main.js (a build) runs under that one, without the TypeScript loader', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'built-child-'));
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    writeFileSync(
      join(folder, 'child-main.js'),
      [
        'const { tasks } = await import(process.argv[2]);',
        "process.on('disconnect', () => process.exit(0));",
        "process.on('message', async (m) => process.send({ type: 'done', id: m.id, result: await tasks[m.task](m.payload) }));",
        "process.send({ type: 'ready' });",
      ].join('\n'),
    );
    writeFileSync(
      join(folder, 'tasks.js'),
      'export const tasks = { whoAmI: () => ({ entry: process.argv[1], execArgv: process.execArgv }) };',
    );
    const pool = newPool({ tasksModule: join(folder, 'tasks.js') });
    const child = await pool.run<{ entry: string; execArgv: string[] }>('whoAmI', null);
    expect(child.entry).toBe(join(folder, 'child-main.js'));
    expect(child.execArgv.join(' ')).not.toContain('tsx');
  });
});
