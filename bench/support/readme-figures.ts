/**
 * The README's paragraph of measured figures, made from the bench's rows (the run that also writes
 * docs/benchmarks.md, or that page's table read back), so that no figure in the README is typed by
 * hand: a full `npm run bench`, or `npm run bench -- --render`, writes it between its markers.
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { BenchReport, Row } from './report.js';

export const FIGURES_START = '<!-- bench-figures:start -->';
export const FIGURES_END = '<!-- bench-figures:end -->';

const NOT_MEASURED = '(not measured in the last run)';

/** The first number of a cell, as it is written there ("25,870 req/s (0 / 1 ms)" -> "25,870"). */
const firstNumber = (cell: string | undefined) => /\d[\d,.]*/.exec(cell ?? '')?.[0];

function find(sections: BenchReport['sections'], section: string, metricStart: string): Row | undefined {
  return sections[section]?.rows.find((r) => r.metric.startsWith(metricStart));
}

/** "a-b" of the ratios' first numbers (each with its unit x), or the one value. */
function range(values: Array<string | undefined>, unit = 'x'): string | undefined {
  const numbers = values.map((v) => Number(firstNumber(v)?.replace(/,/g, ''))).filter(Number.isFinite);
  if (numbers.length === 0) return undefined;
  const low = Math.min(...numbers);
  const high = Math.max(...numbers);
  return low === high ? `${low}${unit}` : `${low}-${high}${unit}`;
}

export function renderReadmeFigures(sections: BenchReport['sections']): string {
  const first = find(sections, 'start', 'launch to first 200 from GET');
  const direct = find(sections, 'start', 'launch to first 200, the mock launched directly');
  const idle = find(sections, 'start', 'idle RSS');
  const http = (sections.http?.rows ?? []).filter((r) => r.metric.includes('throughput'));
  const vsPrism = (sections.http?.rows ?? []).filter((r) => r.metric.includes('spec-only mock'));
  const resumable = find(sections, 'uploads', 'resumable 1024 MB');
  const resumable4 = find(sections, 'uploads', 'resumable, 4 parts at a time 1024 MB');
  const big = find(sections, 'limits', 'peak RSS of the mock');
  const opencv = (sections.segmentation?.rows ?? []).find((r) => r.peer.startsWith('opencv'));
  const when = Object.values(sections)
    .map((s) => s.measuredAt.slice(0, 10))
    .filter(Boolean)
    .sort()
    .pop();
  const parts = [
    `Measured by \`npm run bench\` on this 2-core machine, each against a peer in the same run`,
    ` ([docs/benchmarks.md](docs/benchmarks.md)${when ? `, ${when}` : ''}; this paragraph is written by the bench): `,
    first
      ? `first answer ${first.ours} after \`npm start\` against ${firstNumber(first.peer)} ms for Prism's spec-only mock (${first.ratio.split(' ')[0]} sooner); `
      : `start ${NOT_MEASURED}; `,
    direct
      ? `${direct.ours} launched directly (\`node_modules/.bin/cellseg-mock\`; \`npx\` adds its own start, about half a second); `
      : '',
    idle ? `idle process tree ${idle.ours}, Prism's ${firstNumber(idle.peer)} MB; ` : '',
    http.length
      ? `GET routes at ${range(http.map((r) => r.ratio))} of a bare node:http server answering a fixed body` +
        (vsPrism.length ? `, ${range(vsPrism.map((r) => r.ratio))} Prism's throughput; ` : '; ')
      : `HTTP ${NOT_MEASURED}; `,
    resumable
      ? `a resumable 1 GB upload at ${firstNumber(resumable.ours)} MB/s one part at a time` +
        (resumable4 ? ` and ${firstNumber(resumable4.ours)} MB/s four at a time` : '') +
        ` (each part flushed before its 200; docs/benchmarks.md puts both against a stream copy and a bare part server); `
      : '',
    big
      ? `an 18,000 x 18,000 RGB float32 TIFF (3.9 GB decoded) converted at a peak of ${big.ours.split(' (')[0]} for the whole process tree; `
      : '',
    opencv
      ? `threshold segmentation of a 2048 x 2048 image with 900 cells in ${firstNumber(opencv.ours)} ms, ${opencv.ratio.split(' ')[0]} OpenCV's speed on the same pixels.`
      : `segmentation ${NOT_MEASURED}.`,
  ];
  return parts.join('');
}

/** Writes the paragraph between the README's markers. */
export async function writeReadmeFigures(readmePath: string, paragraph: string): Promise<void> {
  const text = await readFile(readmePath, 'utf8');
  const start = text.indexOf(FIGURES_START);
  const end = text.indexOf(FIGURES_END);
  if (start < 0 || end < start)
    throw new Error(`${readmePath} has no ${FIGURES_START} ... ${FIGURES_END} markers`);
  await writeFile(
    readmePath,
    `${text.slice(0, start + FIGURES_START.length)}\n${paragraph}\n${text.slice(end)}`,
  );
}
