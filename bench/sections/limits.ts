/**
 * Section 5, limits: how segmentation time and memory grow with the image, measured at two sizes
 * with the same cell density as the 2048 fixture (the next smaller size is the peer), then extrapolated
 * per megapixel; first, on the fresh mock, the peak memory of converting a big image (big-image.ts). The runner turns these numbers and those of the other sections into the README's
 * limits paragraph.
 */
import { encodeTiff } from '../../fixtures/generator/tiff-writer.js';
import { renderSynthetic, FIXTURE_PRESETS } from '../../fixtures/generator/synthetic.js';
import { HttpApi, ACME_KEY, seededModelId } from '../../test-support/api-client.js';
import { multipartUpload } from '../support/body-request.js';
import { presetTiff } from '../support/fixtures.js';
import type { Child } from '../support/processes.js';
import { fmt, type BenchContext, type Row, type SectionResult } from '../support/report.js';
import { treeRssWatch } from '../support/tree-rss.js';
import { bigImageRow, type BigImagePoint } from './big-image.js';

export interface SegmentationPoint {
  side: number;
  megapixels: number;
  cells: number;
  seconds: number;
  rssBefore: number;
  rssPeak: number;
}

export async function runLimitsBench(ctx: BenchContext, mock: Child): Promise<SectionResult> {
  const sides = ctx.quick ? [1024, 2048] : [1024, 2048, 4096];
  const api = new HttpApi(mock.url, ACME_KEY);
  const base = FIXTURE_PRESETS['large-16bit-2048'];
  const points: SegmentationPoint[] = [];
  const big = await bigImageRow(ctx, mock).catch((err: unknown): { row: Row; point?: BigImagePoint } => ({
    row: {
      section: 'Limits',
      metric: 'peak RSS converting an 18,000x18,000 RGB float32 TIFF',
      ours: `failed: ${(err as Error).message}`,
      peer: '',
      ratio: '',
      target: '<= 1.5 GB peak, ready',
      ok: false,
    },
  }));
  ctx.log('limits: warming both segmentation threads');
  const warmImage = await api.uploadBytes(presetTiff('easy-8bit-256'), 'limits-warm.tif');
  const warm = await Promise.all(
    [seededModelId('nuclei-fluorescence'), seededModelId('cells-fluorescence-split')].map((m) =>
      api.predict(warmImage.id, m),
    ),
  );
  await Promise.all(warm.map((a) => api.pollPrediction(a.prediction_id)));
  await api.json('DELETE', `/api/v1/upload/${warmImage.id}`);
  for (const side of sides) {
    const scale = (side / 2048) ** 2;
    ctx.log(`limits: rendering and segmenting ${side}x${side}`);
    const { plane } = renderSynthetic({
      ...base,
      width: side,
      height: side,
      cellCount: Math.round(base.cellCount * scale),
      radius: { ...base.radius },
    });
    const bytes = encodeTiff([{ width: side, height: side, bitsPerSample: 16, data: plane.data }]);
    // Not fetch: a refusal (507 when the disk is full) closes the connection mid-body, and fetch
    // would report only the broken pipe, not the answer.
    const image = await multipartUpload(mock.url, ACME_KEY, `limits-${side}.tif`, { bytes });
    await mock.mem(true);
    // The whole tree: the segmentation runs in a decoder child, not in the mock's own process.
    const watch = treeRssWatch(mock.pid);
    const t = performance.now();
    const ack = await api.predict(image.id);
    const done = await api.pollPrediction(ack.prediction_id, { intervalMs: 10 });
    const seconds = (performance.now() - t) / 1000;
    const rss = watch.stop();
    if (done.status !== 'COMPLETED') throw new Error(`segmentation of ${side} ended ${done.status}`);
    await api.json('DELETE', `/api/v1/upload/${image.id}`);
    points.push({
      side,
      megapixels: (side * side) / 1e6,
      cells: done.cell_count ?? 0,
      seconds,
      rssBefore: rss.start,
      rssPeak: rss.peak,
    });
    ctx.log(
      `limits: ${side}x${side}, ${done.cell_count} cells in ${seconds.toFixed(2)} s, peak RSS ${fmt.mb(rss.peak)}`,
    );
  }
  const [small, large] = points.slice(-2);
  const perPixel = large.seconds / small.seconds / (large.megapixels / small.megapixels);
  return {
    rows: [
      big.row,
      {
        section: 'Limits',
        metric: `segmentation (submit to COMPLETED) of ${large.side}x${large.side}, ${large.cells} cells`,
        ours: `${large.seconds.toFixed(2)} s; peak RSS of the mock's process tree ${fmt.mb(large.rssPeak)} (+${fmt.mb(large.rssPeak - large.rssBefore)})`,
        peer: `${small.side}x${small.side}, ${small.cells} cells: ${small.seconds.toFixed(2)} s; +${fmt.mb(small.rssPeak - small.rssBefore)}`,
        ratio: `${fmt.x(large.seconds / small.seconds)} time for ${fmt.x(large.megapixels / small.megapixels)} pixels (${fmt.x(perPixel)} per pixel)`,
        target: 'none',
        ok: null,
      },
    ],
    data: { segmentation: points, bigImage: big.point },
  };
}
