/**
 * Section 4, load without loss: many concurrent clients on loopback, each looping upload (small
 * TIFF), predict, poll, export CSV, delete, in a fresh organization with large caps. Peer: one
 * client running the same loop alone, in the same mock, just before. Afterwards every id the
 * clients saw is checked against the mock (usage counters, and a GET of each id): a prediction
 * whose image the loop deleted must be gone with it, any other must answer COMPLETED.
 */
import { HttpApi, createBigOrg, orgUsage, resetMock } from '../../test-support/api-client.js';
import { presetTiff } from '../support/fixtures.js';
import {
  judgePredictionLookups,
  loopClient as client,
  newTally,
  type PredictionLookup,
} from '../support/loop-client.js';
import { MB, rssWatch, sleep, type Child } from '../support/processes.js';
import { fmt, median, type BenchContext, type Row, type SectionResult } from '../support/report.js';
import type { Prediction } from '../../openapi/generated/client/types.gen.js';

async function mapLimit<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

export async function runLoadBench(ctx: BenchContext, mock: Child): Promise<SectionResult> {
  const clients = ctx.quick ? 20 : 200;
  const seconds = ctx.quick ? 5 : 20;
  const soloSeconds = ctx.quick ? 2 : 5;
  const maxIterations = 1000;
  const bytes = presetTiff('easy-8bit-256');

  const rssIdle = (await mock.mem(true)).rss;
  const org = await createBigOrg(mock.url, 'bench-load');

  ctx.log(`load: warming the segmentation threads, then one client alone for ${soloSeconds} s (the peer)`);
  const solo = newTally();
  const soloApi = new HttpApi(mock.url, org.key);
  // Two loops at once start both worker threads (the first segmentation on a thread pays its start-up).
  await Promise.all([0, 1].map(() => client(soloApi, bytes, Date.now() + 60_000, 1, solo)));
  solo.iterations = 0;
  solo.iterationMs = [];
  let t0 = performance.now();
  await client(soloApi, bytes, Date.now() + soloSeconds * 1000, maxIterations, solo);
  const soloWall = (performance.now() - t0) / 1000;

  ctx.log(`load: ${clients} clients for ${seconds} s`);
  const memBefore = await mock.mem(true);
  const rssBefore = memBefore.rss;
  const watch = rssWatch(mock.pid);
  const tallies = Array.from({ length: clients }, newTally);
  const apis = tallies.map(() => new HttpApi(mock.url, org.key));
  const deadline = Date.now() + seconds * 1000;
  t0 = performance.now();
  const progress = setInterval(() => {
    const done = tallies.reduce((s, t) => s + t.iterations, 0);
    ctx.log(`load: ${done} iterations so far`);
  }, 5000);
  await Promise.all(tallies.map((t, i) => client(apis[i], bytes, deadline, maxIterations, t)));
  clearInterval(progress);
  const wall = (performance.now() - t0) / 1000;
  const rss = watch.stop();
  const memAfter = await mock.mem(true);
  const rssAfter = memAfter.rss;

  ctx.log('load: checking every id against the mock');
  const all = [solo, ...tallies];
  const images = all.flatMap((t) => t.images);
  const predictions = all.flatMap((t) => t.predictions);
  const deleted = all.reduce((s, t) => s + t.deletedImages.size, 0);
  const skipped = all.reduce((s, t) => s + t.skipped, 0);
  const failures = all.flatMap((t) => t.failures);
  const serverErrors = [soloApi, ...apis].flatMap((a) => a.serverErrors);
  const duplicateImages = images.length - new Set(images).size;
  const duplicatePredictions = predictions.length - new Set(predictions.map((p) => p.id)).size;
  const usage = await orgUsage(mock.url, org.id);
  const checker = new HttpApi(mock.url, org.key);
  let imagesStillThere = 0;
  await mapLimit(images, 16, async (id) => {
    const res = await checker.send('GET', `/api/v1/upload/${id}`);
    await res.arrayBuffer();
    if (res.status === 200) imagesStillThere++;
  });
  const deletedImages = new Set(all.flatMap((t) => [...t.deletedImages]));
  const lookups: PredictionLookup[] = [];
  await mapLimit(predictions, 16, async ({ id, imageId }) => {
    const res = await checker.send('GET', `/api/v1/predict/${id}`);
    const body = (await res.json()) as Prediction;
    lookups.push({ imageDeleted: deletedImages.has(imageId), httpStatus: res.status, status: body.status });
  });
  const verdict = judgePredictionLookups(lookups);
  const predictionsLost = verdict.lost;
  const predictionsNotCompleted = verdict.notCompleted;
  const expectedImages = images.length - deleted;
  const lostImages = Math.abs(usage.images - expectedImages) + Math.abs(imagesStillThere - expectedImages);

  await resetMock(mock.url);
  await sleep(1000);
  const memAfterReset = await mock.mem(true);
  const rssAfterReset = memAfterReset.rss;

  const iterations = tallies.reduce((s, t) => s + t.iterations, 0);
  const rate = iterations / wall;
  const soloRate = solo.iterations / soloWall;
  const iterMs = median(tallies.flatMap((t) => t.iterationMs));
  const soloMs = median(solo.iterationMs);
  const data = {
    clients,
    seconds,
    wall,
    iterations,
    uploads: images.length - solo.images.length,
    predictions: predictions.length,
    solo: { iterations: solo.iterations, wall: soloWall, medianIterationMs: soloMs },
    medianIterationMs: iterMs,
    serverErrors: serverErrors.length,
    serverErrorSamples: serverErrors.slice(0, 10),
    failures: failures.length,
    failureSamples: [...new Set(failures)].slice(0, 10),
    duplicateImages,
    duplicatePredictions,
    usage,
    expectedImages,
    imagesStillThere,
    predictionsLost,
    predictionsNotCompleted,
    predictionsOutlivingTheirImage: verdict.outlivedImage,
    skipped,
    rss: { idle: rssIdle, before: rssBefore, peak: rss.peak, after: rssAfter, afterReset: rssAfterReset },
    heapUsed: { before: memBefore.heapUsed, after: memAfter.heapUsed, afterReset: memAfterReset.heapUsed },
    external: { before: memBefore.external, after: memAfter.external, afterReset: memAfterReset.external },
  };
  ctx.log(`load: ${JSON.stringify({ ...data, failureSamples: undefined, serverErrorSamples: undefined })}`);

  const lossOk =
    duplicateImages === 0 &&
    duplicatePredictions === 0 &&
    lostImages === 0 &&
    predictionsLost === 0 &&
    predictionsNotCompleted === 0 &&
    verdict.outlivedImage === 0;
  const rows: Row[] = [
    {
      section: 'Load',
      metric: `${clients} clients x ${seconds} s, upload/predict/poll/CSV/delete loop: completed loops`,
      ours: `${iterations} loops, ${rate.toFixed(1)}/s (= uploads/s); median loop ${fmt.ms(iterMs)}`,
      peer: `1 client alone: ${soloRate.toFixed(1)}/s, median loop ${fmt.ms(soloMs)}`,
      ratio: `${fmt.x(rate / soloRate)} throughput, ${fmt.x(iterMs / soloMs)} loop time`,
      target: 'none',
      ok: null,
    },
    {
      section: 'Load',
      metric: '5xx responses; failed loops',
      ours: `${serverErrors.length} 5xx; ${failures.length} failed loops`,
      peer: `of ${images.length} uploads, ${predictions.length} predictions`,
      ratio: `${((serverErrors.length / Math.max(1, images.length)) * 100).toFixed(2)}%`,
      target: '0 5xx',
      ok: serverErrors.length === 0,
    },
    {
      section: 'Load',
      metric: 'lost or duplicated images / predictions',
      ours: `dup ${duplicateImages} / ${duplicatePredictions}; lost ${lostImages} / ${predictionsLost}; not COMPLETED ${predictionsNotCompleted}; outlived their deleted image ${verdict.outlivedImage}`,
      peer: `usage.images ${usage.images}, expected ${expectedImages}; ${imagesStillThere} ids still answer`,
      ratio: lossOk ? 'exact' : 'MISMATCH',
      target: 'none lost, none duplicated',
      ok: lossOk,
    },
    {
      section: 'Load',
      metric: 'analyses counted vs predictions submitted',
      ours: `analyses_this_month ${usage.analyses_this_month}`,
      peer: `${predictions.length} submitted, ${skipped} skipped`,
      ratio: fmt.x(usage.analyses_this_month / Math.max(1, predictions.length)),
      target: 'exactly equal, 0 skipped',
      ok: usage.analyses_this_month === predictions.length && skipped === 0,
    },
    {
      section: 'Load',
      metric: 'mock RSS: before / peak / after / after POST /__mock/reset (each after a full GC)',
      ours: `${fmt.mb(rssBefore)} / ${fmt.mb(rss.peak)} / ${fmt.mb(rssAfter)} / ${fmt.mb(rssAfterReset)}`,
      peer:
        `before the run (warm): ${fmt.mb(rssBefore)}; cold idle mock: ${fmt.mb(rssIdle)}; JS heap used ` +
        `${fmt.mb(memBefore.heapUsed)} before, ${fmt.mb(memAfterReset.heapUsed)} after reset`,
      ratio: `peak ${fmt.x(rss.peak / rssBefore)}, after reset ${fmt.x(rssAfterReset / rssBefore)} of before`,
      target: 'after reset within 30 MB of before',
      ok: rssAfterReset - rssBefore < 30 * MB,
    },
  ];
  return { rows, data };
}
