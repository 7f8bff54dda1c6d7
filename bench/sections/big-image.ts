/**
 * The limits section's big-image row: peak RSS of the mock's whole process tree
 * (the server and its decoder children) while it converts an 18,000 x 18,000 RGB float32 TIFF,
 * 3.9 GB decoded, under every limit of the server. The file is written for the run as a stream
 * (fixtures/generator/streamed-rgb-float.ts) and removed after it; the upload is a single request,
 * answered once the conversion is done. The peer is the idle tree just before the upload.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { writeStreamedRgbFloat } from '../../fixtures/generator/streamed-rgb-float.js';
import { ACME_KEY, HttpApi } from '../../test-support/api-client.js';
import { multipartUpload } from '../support/body-request.js';
import type { Child } from '../support/processes.js';
import { fmt, type BenchContext, type Row } from '../support/report.js';
import { treeRssWatch } from '../support/tree-rss.js';

const SIDE = 18_000;
const TARGET_BYTES = 1.5 * 1024 ** 3;

export interface BigImagePoint {
  side: number;
  fileBytes: number;
  seconds: number;
  status: string;
  treeRssBefore: number;
  treeRssPeak: number;
  treeRssPeakSumOfPeaks: number;
}

export async function bigImageRow(
  ctx: BenchContext,
  mock: Child,
): Promise<{ row: Row; point: BigImagePoint }> {
  const file = path.join(ctx.tmpDir, `big-rgb-float-${SIDE}.tif`);
  ctx.log(`limits: writing a ${SIDE}x${SIDE} RGB float32 TIFF as a stream`);
  const size = await writeStreamedRgbFloat(file, SIDE, SIDE);
  try {
    await mock.mem(true);
    const watch = treeRssWatch(mock.pid);
    const t = performance.now();
    const image = await multipartUpload(mock.url, ACME_KEY, path.basename(file), { file, size });
    const seconds = (performance.now() - t) / 1000;
    const rss = watch.stop();
    await new HttpApi(mock.url, ACME_KEY).json('DELETE', `/api/v1/upload/${image.id}`);
    const point: BigImagePoint = {
      side: SIDE,
      fileBytes: size,
      seconds,
      status: image.upload_status,
      treeRssBefore: rss.start,
      treeRssPeak: rss.peak,
      treeRssPeakSumOfPeaks: rss.peakSumOfPeaks,
    };
    ctx.log(
      `limits: ${SIDE}x${SIDE} RGB float32 ${image.upload_status} in ${seconds.toFixed(1)} s, tree peak ${fmt.mb(rss.peak)} (sum of peaks ${fmt.mb(rss.peakSumOfPeaks)})${image.upload_error ? `: ${image.upload_error}` : ''}`,
    );
    const ready = image.upload_status === 'ready';
    const row: Row = {
      section: 'Limits',
      metric: `peak RSS of the mock's process tree (server + decoder) converting a ${SIDE.toLocaleString('en-US')}x${SIDE.toLocaleString('en-US')} RGB float32 TIFF (${(size / 1e9).toFixed(1)} GB, uncompressed, single-request upload)`,
      ours: `${fmt.mb(rss.peak)} (sum of each process's peak ${fmt.mb(rss.peakSumOfPeaks)}); ${image.upload_status} in ${seconds.toFixed(1)} s${image.upload_error ? `: ${image.upload_error}` : ''}`,
      peer: `idle tree before the upload: ${fmt.mb(rss.start)}`,
      ratio: `${fmt.x(rss.peak / rss.start)} of idle`,
      target: '<= 1.5 GB peak, ready',
      // The sum of each process's own peak bounds the tree's peak from above (tree-rss.ts).
      ok: ready && rss.peakSumOfPeaks <= TARGET_BYTES,
    };
    return { row, point };
  } finally {
    await rm(file, { force: true });
  }
}
