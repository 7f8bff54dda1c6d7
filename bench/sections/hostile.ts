/**
 * Section "hostile": does a hostile upload freeze or kill the mock for everyone else?
 *
 * 1. Latency of `GET /models` for a second organization (Beta), one request after another, with
 *    no upload running: the peer figure.
 * 2. The same while Acme uploads the corpus file that takes the mock longest
 *    (fixtures/hostile/deflate-shared-strips-400MP.tif: 12 KB, 400 megapixels decoded): p50, p99
 *    and max against the baseline. The issue's target is p99 under 100 ms.
 * 3. Every file of fixtures/hostile/ through a single-request upload: how each ends, whether the
 *    mock still answers after it, and the mock's peak RSS (its own process; decoders are children).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { HostileExpectation } from '../../fixtures/hostile/build-hostile.js';
import { HttpApi, ACME_KEY, seed } from '../../test-support/api-client.js';
import { repoRoot, rssWatch, sleep, type Child } from '../support/processes.js';
import { fmt, type BenchContext, type SectionResult } from '../support/report.js';
import type { UploadResponse } from '../../openapi/generated/client/types.gen.js';
import { runIsolationRows } from './hostile-isolation.js';

const HOSTILE_DIR = path.join(repoRoot, 'fixtures', 'hostile');
const WORST = 'deflate-shared-strips-400MP.tif';
const BETA_KEY = seed.organizations[1].api_keys[0];

interface Latency {
  count: number;
  p50: number;
  p99: number;
  max: number;
  failures: number;
}

function summarize(samples: number[], failures: number): Latency {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
  return { count: s.length, p50: at(0.5), p99: at(0.99), max: s[s.length - 1] ?? NaN, failures };
}

/**
 * Beta's GET /models, one request every 20 ms whether or not the previous one answered (an open
 * loop: a stalled event loop delays every request sent during the stall, not just one), until
 * `until` settles. Latency counts from the moment a request was due.
 */
async function probe(base: string, until: Promise<unknown>): Promise<Latency> {
  let done = false;
  void until.finally(() => (done = true));
  const samples: number[] = [];
  let failures = 0;
  const inFlight: Array<Promise<void>> = [];
  const one = async (due: number) => {
    try {
      const res = await fetch(`${base}/api/v1/models`, { headers: { authorization: `Bearer ${BETA_KEY}` } });
      await res.arrayBuffer();
      if (res.status !== 200) failures++;
    } catch {
      failures++;
    }
    samples.push(performance.now() - due);
  };
  const start = performance.now();
  for (let i = 0; !done; i++) {
    const due = start + i * 20;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    inFlight.push(one(due));
  }
  await Promise.all(inFlight);
  return summarize(samples, failures);
}

function stopWatch(watch: ReturnType<typeof rssWatch>): { start: number; peak: number; end: number } {
  try {
    return watch.stop();
  } catch {
    return { start: NaN, peak: NaN, end: NaN }; // the mock is gone
  }
}

async function alive(base: string): Promise<boolean> {
  try {
    return (await fetch(`${base}/__mock/health`, { signal: AbortSignal.timeout(30_000) })).status === 200;
  } catch {
    return false;
  }
}

export async function runHostileBench(ctx: BenchContext, mock: Child): Promise<SectionResult> {
  const api = new HttpApi(mock.url, ACME_KEY);
  const expected = JSON.parse(
    readFileSync(path.join(HOSTILE_DIR, 'expected.json'), 'utf8'),
  ) as HostileExpectation[];
  const upload = async (file: string) => {
    const form = new FormData();
    form.append('file', new Blob([readFileSync(path.join(HOSTILE_DIR, file))]), file);
    const res = await api.send('POST', '/api/v1/upload', form);
    // A refused file answers an error body, with no image.
    const body = (await res.json()) as Partial<UploadResponse>;
    if (body.image) await api.send('DELETE', `/api/v1/image/${body.image.id}`);
    return { status: res.status, image: body.image };
  };

  ctx.log('hostile: warming up, then the baseline latency of GET /models (Beta), no upload');
  await probe(mock.url, sleep(1000));
  const baseline = await probe(mock.url, sleep(ctx.quick ? 2000 : 5000));
  ctx.log(`hostile: uploading ${WORST} (Acme) while Beta polls GET /models`);
  const worstRss = rssWatch(mock.pid);
  const t = performance.now();
  const worstUpload = upload(WORST).catch((err: unknown) => ({ status: 0, error: String(err) }));
  const during = await probe(mock.url, worstUpload);
  const worst = { ...(await worstUpload), seconds: (performance.now() - t) / 1000, rss: stopWatch(worstRss) };
  ctx.log(
    `hostile: ${WORST} answered in ${worst.seconds.toFixed(1)} s: ${JSON.stringify(worst).slice(0, 300)}`,
  );

  const outcomes: Array<{
    file: string;
    status: number;
    uploadStatus?: string;
    error?: string;
    aliveAfter: boolean;
  }> = [];
  const watch = rssWatch(mock.pid);
  for (const e of expected) {
    if (!(await alive(mock.url))) break;
    ctx.log(`hostile: uploading ${e.file}`);
    const r = await upload(e.file).catch((err: unknown) => ({
      status: 0,
      image: undefined,
      error: String(err),
    }));
    const aliveAfter = await alive(mock.url);
    outcomes.push({
      file: e.file,
      status: r.status,
      uploadStatus: r.image?.upload_status,
      error: r.image?.upload_error ?? undefined,
      aliveAfter,
    });
    ctx.log(
      `hostile:   -> ${r.status} ${r.image?.upload_status ?? ''} ${r.image?.upload_error ?? ''} (alive: ${aliveAfter})`,
    );
  }
  const rss = stopWatch(watch);
  const isolation = await runIsolationRows(ctx, mock);
  const survived = outcomes.length === expected.length && outcomes.every((o) => o.aliveAfter);
  const refused = outcomes.filter((o) => o.uploadStatus === 'failed' && o.error).length;
  const decoded = outcomes.filter((o) => o.uploadStatus === 'ready').length;
  const ms = (l: Latency) =>
    `p50 ${fmt.ms(l.p50)}, p99 ${fmt.ms(l.p99)}, max ${fmt.ms(l.max)} (${l.count} requests${l.failures ? `, ${l.failures} failed` : ''})`;
  return {
    rows: [
      {
        section: 'Hostile input',
        metric: `GET /models for a second organization (every 20 ms) during the upload of ${WORST} (${worst.seconds.toFixed(1)} s, ${worst.status === 200 && 'image' in worst ? worst.image?.upload_status : 'no answer'}; mock peak RSS ${fmt.mb(worst.rss.peak)})`,
        ours: ms(during),
        peer: `no upload: ${ms(baseline)}`,
        ratio: `p99 ${fmt.x(during.p99 / baseline.p99)} the baseline`,
        target: 'p99 < 100 ms',
        ok: during.failures === 0 && during.p99 < 100,
      },
      {
        section: 'Hostile input',
        metric: `every file of fixtures/hostile/ (${expected.length}) through a single-request upload`,
        ours: `${refused} refused with a reason, ${decoded} decoded within the limits (blank); mock ${survived ? 'alive after each' : 'DIED'}; mock peak RSS ${fmt.mb(rss.peak)}`,
        peer: `RSS before: ${fmt.mb(rss.start)}`,
        ratio: `+${fmt.mb(rss.peak - rss.start)}`,
        target: 'the mock survives every file',
        ok: survived,
      },
      ...isolation.rows,
    ],
    data: { baseline, during, worst, outcomes, rss, isolation: isolation.data },
  };
}
