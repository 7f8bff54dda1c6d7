/**
 * "What misses its target, and why" in docs/benchmarks.md: every missed row and every failed
 * section of a run gets a line. A row's own `why` comes first, then a diagnosed cause matched by
 * its target, and where neither exists the line says so instead of leaving the miss unexplained.
 */
import type { Row, SectionRecord } from './report.js';

/**
 * Causes of the misses, from CPU profiles of the mock (`--profile`, analysed on 2026-11-22); printed
 * only for a target this run missed. The causes are in mock-server/, which the benchmark does not change.
 */
const CAUSES: Array<{ match: RegExp; text: string }> = [
  {
    match: /overhead < 30%/,
    text:
      "- **HTTP overhead over bare express.** The first profile showed openapi-backend's `matchOperation` " +
      'rebuilding its operation list and a RegExp per path on every request (about 30% of the busy time, ' +
      'overhead +200%); the dispatcher now matches on patterns compiled once ' +
      '(`mock-server/http/route-table.ts`), which brought it to about +60%. What remains is work the ' +
      'bare route does not do, spread thin across many functions: the bearer lookup, request validation ' +
      "(openapi-backend's `parseRequest` plus Ajv), a pino log line, a journal entry for the control plane " +
      'and the request id. Cutting it further would mean compiling our own validators per operation.',
  },
  {
    match: /p99 < 50 ms/,
    text:
      '- **p99 while four segmentations run.** Two segmentation worker threads, the event loop and the ' +
      "load generator share two cores. In the window the profile covers, the mock's main thread was busy 90% " +
      'of the time, yet gathered only about a third of the CPU samples its busy stretches would hold ' +
      '(it was waiting for a core): tail latency is CPU starvation times the per-request cost above. ' +
      'The mock leaves a core to the event loop by default (`--worker-threads` = cores - 1). Segmentations ' +
      'run in child processes (runtime/decoder-pool/) started on demand: the first prediction after a ' +
      "child has stopped for idleness (10 s) also pays that child's start, about 0.1 s from dist/ and " +
      '0.3 s from the sources through tsx (measured 2026-11-23).',
  },
  {
    match: />= 0\.6x of stream copy/,
    text:
      '- **Resumable uploads, one part at a time.** Each part is flushed (fdatasync) before its 200, ' +
      'acknowledged meaning durable, and a client sending one part at a time sends the next only after ' +
      "that 200: the network and the disk's flush take turns, where the stream copy flushes once at the end. " +
      "A part's MD5 (its ETag, S3's rule) is taken on a thread of its own as its bytes are written " +
      '(`stores/object-store/md5-thread.ts`), so only the flush is left when the last byte arrives. Where a ' +
      "part's ~31 ms went (8 MiB parts timed inside the mock, medians of 128, 2026-11-27, load average 2.3): " +
      '2 ms before its first byte is read (records, slot claim, open), 17 ms receiving its bytes, 2 ms for ' +
      'the last writes, 5 ms for the flush and the MD5 side by side, 5 ms closing and recording it; the client ' +
      'adds 2-5 ms between a 200 and the next PUT. The receive is bound by CPU, not the disk: the MD5 alone ' +
      'is 10.5 ms of a core per 8 MiB, half or more of the time the stream copy takes for those bytes, and a ' +
      "part costs the mock 27-46 ms of CPU in all (V8's collector threads 1-9 ms of it, for the socket's " +
      '64 KiB chunks), on two cores it shares with the client and with other work. The floor is in the ' +
      "row's peer column, measured in the same run: the same parts, sent the same way, to a bare node:http " +
      'server that only writes each part at its offset, MD5s it on a thread as it arrives and fdatasyncs it ' +
      '(`bench/support/part-floor-child.ts`; no open, no complete, no conversion). On 2026-11-27 it reached ' +
      "0.55-0.62x of the stream copy one part at a time over four runs, and the mock's PUTs ran at 0.90-1.01x " +
      "of its speed; the mock's figure also holds the open, the complete and the conversion to `ready` " +
      '(0.37 s of 4.4 s for 1 GB). So one at a time, 0.6x of the stream copy is at or above what the part ' +
      'floor itself reaches on this machine, and the mock is within a tenth of that floor. Four parts at a ' +
      "time overlap one part's flush and MD5 with another's bytes, and meet the target (0.65-0.79x).",
  },
  {
    match: /after reset within 30 MB/,
    text:
      '- **RSS after reset.** Compare the JS heap used before and after the reset in the same row: when it is ' +
      'back at its level before the run, no state outlived the reset. Diagnosed with smaps, heap statistics and ' +
      "gdb: what stays is V8's heap pages in the main thread, which V8 keeps mapped until its memory reducer " +
      'runs 15-20 s later on an idle mock, plus 35-45 MB of glibc free lists (`malloc_trim(0)` returned 40 MB). ' +
      'A full reset therefore replaces the workers and runs two full collections ' +
      '(`mock-server/control/release-memory.ts`); a miss here means something new holds memory past a reset.',
  },
  {
    match: /OpenCV/,
    text:
      '- **Segmentation against OpenCV.** The kernels are plain JavaScript, one implementation each: ' +
      'WebAssembly SIMD made the Gaussian about 40 ms and the Otsu histogram and mask about 10 ms faster ' +
      '(CPU time, 2048x2048 at sigma 1.5), and the target was lowered to 0.7x rather than keep two ' +
      'implementations of each. Measured by CPU time on 2026-11-27 (load 20-28, where wall times mean ' +
      "nothing): 85-91 ms against OpenCV's 76-80 ms (0.83-0.94x). Hole filling and labelling find runs " +
      'four mask bytes at a time, and tracing and measuring work from the runs and outlines without a pass ' +
      'over the label image. What is per pixel: the Gaussian (two pixels per float64 multiply-add), the ' +
      'histogram, the run search and writing the 32-bit label image, where OpenCV works in SIMD C++ and ' +
      "thresholds in 8 bits; compare `cpuMedianMs` with the peers' in `reports/bench.json` before " +
      'reading a miss on a loaded machine, and `stagesMedianMs` for the stage that moved.',
  },
];

/** Said of a miss nobody has diagnosed yet. */
export const NO_DIAGNOSIS =
  'not diagnosed yet: `npm run bench -- --only <section> --profile` shows where the time went';

/** One line per miss of `rows` and per failed section; a diagnosed cause is printed once for all its rows. */
export function explainMisses(
  sections: Array<{ title: string; record: SectionRecord | undefined }>,
): string[] {
  const out: string[] = [];
  const printed = new Set<(typeof CAUSES)[number]>();
  for (const { title, record } of sections) {
    if (!record) continue;
    if (record.error) out.push(`- **${title} failed in this run.** ${firstLine(record.error)}`);
    for (const row of record.rows.filter((r: Row) => r.ok === false)) {
      const cause = CAUSES.find((c) => c.match.test(row.target));
      if (row.why) out.push(`- **${title}: ${row.metric}** (target ${row.target}): ${row.why}`);
      else if (cause) {
        if (!printed.has(cause)) out.push(cause.text);
        printed.add(cause);
      } else out.push(`- **${title}: ${row.metric}** (target ${row.target}): ${NO_DIAGNOSIS}.`);
    }
  }
  return out;
}

function firstLine(error: string): string {
  return error.split('\n')[0].replace(/^Error: /, '');
}
