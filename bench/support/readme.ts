/** The section of docs/benchmarks.md between the bench markers: the table, then the limits the numbers show. */
import { readFile, writeFile } from 'node:fs/promises';
import type { SegmentationPoint } from '../sections/limits.js';
import { explainMisses } from './miss-causes.js';
import { MB } from './processes.js';
import type { BenchReport, Row } from './report.js';
import { sandboxSizingText } from './sandbox-rows.js';

export const START = '<!-- bench:start -->';
export const END = '<!-- bench:end -->';
/** Every section, in the table's order, with the name its rows carry. */
export const SECTION_TITLES: Record<string, string> = {
  start: 'Start',
  http: 'HTTP',
  uploads: 'Uploads',
  exports: 'Exports',
  load: 'Load',
  limits: 'Limits',
  hostile: 'Hostile input',
  durability: 'Durability',
  segmentation: 'Segmentation',
  sandbox: 'Sandbox',
  'sandbox-cost': 'Sandbox cost',
};
const ORDER = Object.keys(SECTION_TITLES);
/** The bold heading of each Limits bullet, by the section whose figures it is made from. */
export const LIMIT_HEADINGS: Record<string, string> = {
  limits: 'Largest image segmented',
  uploads: 'Upload size',
  load: 'Uploads per second',
  sandbox: 'Sizing a sandbox',
};

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function limitsText(report: BenchReport): string[] {
  const out: string[] = [];
  const seg = report.sections.limits?.data.segmentation as SegmentationPoint[] | undefined;
  if (seg && seg.length >= 2) {
    const [a, b] = seg.slice(-2);
    const k = Math.log(b.seconds / a.seconds) / Math.log(b.megapixels / a.megapixels);
    // Segmentation visits every pixel: time grows at least in proportion to them. A smaller fitted
    // exponent is noise or fixed costs in sub-second timings, and would extrapolate to nonsense.
    const growth = Math.max(k, 1);
    const mpIn = (s: number) => b.megapixels * (s / b.seconds) ** (1 / growth);
    const memPerMp = (b.rssPeak - b.rssBefore) / b.megapixels;
    const atCap = b.seconds * (400 / b.megapixels) ** growth;
    out.push(
      `- **Largest image segmented in reasonable time.** ${b.side}x${b.side} (${b.megapixels.toFixed(1)} MP) ` +
        `took ${b.seconds.toFixed(1)} s and raised the RSS of the mock's process tree by ${Math.round((b.rssPeak - b.rssBefore) / MB)} MB; ` +
        `time grew as pixels^${k.toFixed(2)} from ${a.side}x${a.side}${k < 1 ? ' (taken as pixels^1 below: no segmentation is cheaper per pixel on a larger image)' : ''}. Extrapolated: about ` +
        `${Math.round(mpIn(60))} MP (${Math.round(Math.sqrt(mpIn(60) * 1e6))} px square) in a minute and ` +
        `${Math.round(mpIn(300))} MP in five (not measured beyond ${b.side}x${b.side}; the mock refuses planes over its 400 MP ` +
        `\`--max-image-pixels\` cap, which would need about ` +
        `${atCap < 120 ? `${Math.round(atCap)} s` : `${(atCap / 60).toFixed(0)} min`} and ` +
        `${((memPerMp * 400) / 1024 ** 3).toFixed(1)} GB per image). What bounds it: one segmentation runs in one ` +
        `decoder child (JavaScript; one core), so time is CPU per pixel; memory is the decoded plane plus ` +
        `the segmenter's per-pixel arrays, held while it runs. \`--worker-threads\` images run at once (by ` +
        `default one less than the cores: one on this 2-core machine) and the rest queue.`,
    );
  }
  const up = report.sections.uploads?.data.uploads as Array<Record<string, number | string>> | undefined;
  if (up?.length) {
    const big = up.filter((u) => u.bytes === Math.max(...up.map((x) => x.bytes as number)));
    const parts = big
      .map(
        (u) =>
          `${u.mode} ${Math.round((u.bytes as number) / (1024 * 1024))} MB at ${Math.round((u.bytesPerSecond as number) / MB)} MB/s ` +
          `(${((u.copyFileSeconds as number) / (u.seconds as number)).toFixed(2)}x of fs.copyFile), RSS +${Math.round(((u.rssPeak as number) - (u.rssBefore as number)) / MB)} MB`,
      )
      .join('; ');
    const r = big.find((u) => u.mode === 'resumable');
    const assembly = r
      ? `: complete to ready took ${((r.seconds as number) - (r.partsSeconds as number)).toFixed(1)} s for ` +
        `${Math.round((r.bytes as number) / MB)} MB, of which the complete call (a flush of the already flushed data file and a rename) ` +
        `${(r.completeSeconds as number).toFixed(1)} s and the conversion the rest`
      : '';
    out.push(
      `- **Upload size.** ${parts}. Bytes are streamed to disk on both paths, so memory does not grow with ` +
        `the file and the size limit is the disk and the 4 GB \`--max-upload-bytes\`; throughput is bounded by ` +
        `the loopback client and the mock sharing two cores; on the resumable path each part is hashed and ` +
        `written in place in one pass and flushed before its 200, and complete renames the data file, with no copy${assembly}. Conversion decodes page 1 only, so a stack costs the same ` +
        `as its first page; a single huge plane is bounded by the segmentation limits above.`,
    );
  }
  const load = report.sections.load?.data as
    | { clients: number; iterations: number; wall: number; solo: { iterations: number; wall: number } }
    | undefined;
  if (load?.iterations) {
    out.push(
      `- **Uploads per second.** ${load.clients} clients completed ${(load.iterations / load.wall).toFixed(1)} ` +
        `upload-predict-poll-export-delete loops/s (${(load.solo.iterations / load.solo.wall).toFixed(1)}/s for one client ` +
        `alone), i.e. as many small uploads and segmentations per second. Both cores are saturated: the ` +
        `clients, the mock's event loop and its two segmentation threads share them, so on this machine ` +
        `the figure is a floor for a dedicated host.`,
    );
  }
  return out;
}

/**
 * The rows of one section; a section without figures still gets a row saying why (never measured,
 * failed, or skipped), so the table shows every section, misses included.
 */
export function sectionRows(report: BenchReport, name: string): Row[] {
  const section = SECTION_TITLES[name] ?? name;
  const record = report.sections[name];
  const empty = (metric: string, ok: boolean | null): Row[] => [
    { section, metric, ours: '', peer: '', ratio: '', target: '', ok },
  ];
  if (!record)
    return empty(
      `not measured: no run of this section on record (\`npm run bench -- --only ${name}\`)`,
      null,
    );
  if (record.error && record.rows.length === 0)
    return empty(`failed in this run: ${record.error.split('\n')[0].replace(/^Error: /, '')}`, false);
  if (record.rows.length === 0)
    return empty(`skipped: ${record.skipped ?? 'the section returned no figures'}`, null);
  return record.rows;
}

export function renderReadmeSection(report: BenchReport): string {
  const rows: Row[] = ORDER.flatMap((s) => sectionRows(report, s));
  const lines = [
    START,
    '',
    '`npm run bench` (all sections, about ' +
      `${Math.max(1, Math.round(totalSeconds(report) / 60))} minutes here), \`npm run bench -- --only http,uploads\`, ` +
      '`npm run bench -- --quick` (smoke run, this page untouched), `npm run bench -- --only load --profile` ' +
      '(mock under `--cpu-prof`, profiles in `reports/profiles/`). Every number is in `reports/bench.json`.',
    '',
    `Machine: ${report.machine.cpus} CPUs (${report.machine.cpuModel}), ${report.machine.memoryGB} GB, Node ` +
      `${report.machine.node}, shared and noisy (load average ${report.machine.loadavg.join(' ')} at the start). ` +
      'Absolute figures move from run to run; compare the ratio column, whose peer ran in the same run on the same ' +
      'machine. The mock runs in its own child process (RSS read from `/proc/<pid>/status`); throughput overhead = ' +
      'peer req/s / our req/s - 1.',
    '',
    '| section | measure | ours | peer (same run) | ratio | target | met |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${cell(r.section)} | ${cell(r.metric)} | ${cell(r.ours)} | ${cell(r.peer)} | ${cell(r.ratio)} | ${cell(r.target)} | ${
          r.ok === null ? '' : r.ok ? 'yes' : '**no**'
        } |`,
    ),
    '',
  ];
  const when = ORDER.filter((s) => report.sections[s]).map(
    (s) => `${s} ${report.sections[s].measuredAt.slice(0, 16).replace('T', ' ')} UTC`,
  );
  if (when.length) lines.push(`Measured: ${when.join('; ')}.`, '');
  const misses = explainMisses(ORDER.map((s) => ({ title: SECTION_TITLES[s], record: report.sections[s] })));
  if (misses.length)
    lines.push('## What misses its target, and why', '', ...oversubscribed(report), ...misses, '');
  const made = [...limitsText(report), ...sandboxSizingText(report.sections.sandbox?.data)];
  // A section read back from the committed page has no raw data: its bullets are kept as they were.
  const limits = Object.entries(LIMIT_HEADINGS).flatMap(([name, heading]) => {
    const own = made.filter((l) => l.startsWith(`- **${heading}`));
    return own.length ? own : (report.sections[name]?.limitNotes ?? []);
  });
  if (limits.length) lines.push('## Limits', '', ...limits, '');
  lines.push(END);
  return lines.join('\n');
}

/** Said first when the run shared the machine with more work than it has cores for. */
function oversubscribed(report: BenchReport): string[] {
  const { cpus, loadavg } = report.machine;
  if (!(loadavg[0] > 2 * cpus)) return [];
  return [
    `This run shared the machine with other work (load average ${loadavg[0]} on ${cpus} cores when it ` +
      'started): a target set as an absolute time or rate (ms, req/s) measures that sharing before ' +
      'anything else; the ratio column, whose peer shared it alike, is what compares.',
    '',
  ];
}

function totalSeconds(report: BenchReport): number {
  return Object.values(report.sections).reduce((sum, s) => sum + s.seconds, 0);
}

export async function writeReadmeSection(readmePath: string, section: string): Promise<void> {
  const text = await readFile(readmePath, 'utf8');
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  const next =
    start >= 0 && end > start
      ? text.slice(0, start) + section + text.slice(end + END.length)
      : text.replace(/\n*$/, '\n\n') + section + '\n';
  await writeFile(readmePath, next);
}
