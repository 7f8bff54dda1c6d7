/**
 * Segmentation benchmark: the threshold pipeline (smooth, Otsu, fill holes, label, split, filter,
 * trace, measure) on a 2048 x 2048 16-bit image with about 900 cells, against scikit-image and
 * OpenCV peers run by Debian's /usr/bin/python3 on the same pixels (written as .npy).
 *
 *   npx tsx bench/segmentation/run.ts          prints a summary and the JSON figures
 *   import { runSegmentationBench } from './segmentation/run.js'
 *
 * Figures are medians over REPEATS runs after WARMUP runs. Timings on a shared machine are noisy:
 * the load average is reported with them.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plane } from '../../mock-server/engines/raster/plane.js';
import {
  segmentByThresholdDetailed,
  type StageTimings,
  type ThresholdParams,
} from '../../mock-server/engines/segmentation/threshold-segmenter.js';

const WIDTH = 2048;
const HEIGHT = 2048;
const SIGMA = 1.5;
/**
 * Runs before the timed ones. V8 optimizes the labelling and tracing loops only after several
 * whole runs: with 2 warm-ups labelling took 14.7 ms and tracing 14.6 ms, with 8 they took 8.5 and
 * 12.2 ms (2026-11-27). The row compares algorithms at steady state, as a decoder child reaches it
 * image after image; a child's first images after it starts run at the colder figures.
 */
const WARMUP = 8;
const REPEATS = 7;
const PYTHON = '/usr/bin/python3';
const here = dirname(fileURLToPath(import.meta.url));

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const round = (v: number): number => Math.round(v * 10) / 10;

/** The fixture generator's 2048 x 2048 preset, or a simple disc painter if it is missing. */
async function benchImage(): Promise<{ plane: Plane; cells: number; source: string }> {
  try {
    const synthetic = await import('../../fixtures/generator/synthetic.js');
    const image = synthetic.renderPreset('large-16bit-2048');
    return { plane: image.plane, cells: image.truth.count, source: 'fixtures/generator large-16bit-2048' };
  } catch {
    const data = new Uint16Array(WIDTH * HEIGHT);
    let seed = 12345;
    const rand = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
    for (let i = 0; i < data.length; i++) data[i] = 1000 + Math.floor(rand() * 400);
    let cells = 0;
    for (let gy = 0; gy < 30; gy++)
      for (let gx = 0; gx < 30; gx++) {
        const cx = 34 + gx * 66 + rand() * 8;
        const cy = 34 + gy * 66 + rand() * 8;
        const r = 8 + rand() * 6;
        cells++;
        for (let y = Math.floor(cy - r); y <= cy + r; y++)
          for (let x = Math.floor(cx - r); x <= cx + r; x++)
            if ((x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 <= r * r)
              data[y * WIDTH + x] = 20000 + Math.floor(rand() * 2000);
      }
    return {
      plane: { width: WIDTH, height: HEIGHT, bitsPerSample: 16, data },
      cells,
      source: 'disc painter',
    };
  }
}

function writeNpy(path: string, plane: Plane): void {
  const data = plane.data as Uint16Array;
  let header = `{'descr': '<u2', 'fortran_order': False, 'shape': (${plane.height}, ${plane.width}), }`;
  while ((10 + header.length + 1) % 64 !== 0) header += ' ';
  header += '\n';
  const prefix = Buffer.alloc(10);
  prefix.write('\x93NUMPY', 0, 'latin1');
  prefix[6] = 1;
  prefix[7] = 0;
  prefix.writeUInt16LE(header.length, 8);
  writeFileSync(
    path,
    Buffer.concat([
      prefix,
      Buffer.from(header, 'latin1'),
      Buffer.from(data.buffer, data.byteOffset, data.byteLength),
    ]),
  );
}

interface PeerFigures {
  peer: string;
  skipped?: string;
  medianMs?: number;
  cpuMedianMs?: number;
  count?: number;
  peakRssMb?: number;
  version?: string;
}

function runPeer(script: string, npy: string): PeerFigures {
  const run = spawnSync(PYTHON, [join(here, script), npy, String(SIGMA), String(REPEATS)], {
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (run.error) return { peer: script, skipped: `${PYTHON} not runnable: ${run.error.message}` };
  const line = run.stdout.trim().split('\n').pop() ?? '';
  try {
    const parsed = JSON.parse(line) as {
      skipped?: string;
      peer: string;
      median_ms: number;
      cpu_median_ms: number;
      count: number;
      peak_rss_mb: number;
      version: string;
    };
    if (parsed.skipped) return { peer: script, skipped: parsed.skipped };
    return {
      peer: parsed.peer,
      version: parsed.version,
      medianMs: round(parsed.median_ms),
      cpuMedianMs: round(parsed.cpu_median_ms),
      count: parsed.count,
      peakRssMb: round(parsed.peak_rss_mb),
    };
  } catch {
    return {
      peer: script,
      skipped: `peer failed (exit ${run.status}): ${run.stderr.trim().split('\n').pop() ?? ''}`,
    };
  }
}

function timePipeline(plane: Plane, params: ThresholdParams) {
  const totals: number[] = [];
  const cpu: number[] = [];
  const stages: Record<string, number[]> = {};
  let objects = 0;
  for (let k = 0; k < WARMUP + REPEATS; k++) {
    const cpuBefore = process.cpuUsage();
    const { result, timings } = segmentByThresholdDetailed(plane, params);
    const cpuUsed = process.cpuUsage(cpuBefore);
    objects = result.objects.length;
    if (k < WARMUP) continue;
    totals.push(timings.totalMs);
    cpu.push((cpuUsed.user + cpuUsed.system) / 1000);
    for (const [stage, ms] of Object.entries(timings) as [keyof StageTimings, number][])
      (stages[stage] ??= []).push(ms);
  }
  return {
    medianMs: round(median(totals)),
    /** Process CPU time (all threads, GC included): steadier than wall time on a shared machine. */
    cpuMedianMs: round(median(cpu)),
    objects,
    stagesMedianMs: Object.fromEntries(Object.entries(stages).map(([s, v]) => [s, round(median(v))])),
  };
}

export async function runSegmentationBench(): Promise<object> {
  const { plane, cells, source } = await benchImage();
  const base: ThresholdParams = {
    sigma: SIGMA,
    polarity: 'bright',
    minAreaPx: 20,
    splitTouching: false,
    excludeBorderObjects: false,
  };
  const loadBefore = loadavg()[0];
  const withoutSplit = timePipeline(plane, base);
  const withSplit = timePipeline(plane, { ...base, splitTouching: true });
  const peakRssMb = round(process.resourceUsage().maxRSS / 1024);
  const dir = mkdtempSync(join(tmpdir(), 'seg-bench-'));
  let skimage: PeerFigures;
  let opencv: PeerFigures;
  try {
    const npy = join(dir, 'bench.npy');
    writeNpy(npy, plane);
    skimage = runPeer('skimage_peer.py', npy);
    opencv = runPeer('opencv_peer.py', npy);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const ratio = (peer: number | undefined, ours: number): number | null =>
    peer ? Math.round((peer / ours) * 100) / 100 : null;
  return {
    image: { width: plane.width, height: plane.height, bitsPerSample: plane.bitsPerSample, cells, source },
    params: base,
    repeats: REPEATS,
    node: process.version,
    loadAverage1m: { before: round(loadBefore), after: round(loadavg()[0]) },
    pipeline: { withoutSplit, withSplit, peakRssMb },
    peers: { skimage, opencv },
    // > 1 means the TypeScript pipeline is faster than the peer.
    speedup: {
      wall: {
        vsSkimage: ratio(skimage.medianMs, withoutSplit.medianMs),
        vsOpenCV: ratio(opencv.medianMs, withoutSplit.medianMs),
        withSplitVsSkimage: ratio(skimage.medianMs, withSplit.medianMs),
        withSplitVsOpenCV: ratio(opencv.medianMs, withSplit.medianMs),
      },
      cpu: {
        vsSkimage: ratio(skimage.cpuMedianMs, withoutSplit.cpuMedianMs),
        vsOpenCV: ratio(opencv.cpuMedianMs, withoutSplit.cpuMedianMs),
        withSplitVsSkimage: ratio(skimage.cpuMedianMs, withSplit.cpuMedianMs),
        withSplitVsOpenCV: ratio(opencv.cpuMedianMs, withSplit.cpuMedianMs),
      },
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = await runSegmentationBench();
  console.log(JSON.stringify(figures, null, 2));
}
