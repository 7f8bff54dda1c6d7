/**
 * Section 2, uploads: single-request (multipart) and resumable (presigned parts) uploads of big
 * TIFF stacks, against copying the same file on the same disk (fs.copyFile, and a stream copy that
 * fsyncs once: an upload is acknowledged only once on disk), with
 * the mock's peak RSS during each upload. Files are streamed from disk on both sides.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, type FileHandle, mkdir, open as openFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { HttpApi, ACME_KEY } from '../../test-support/api-client.js';
import { multipartUpload, sendBody } from '../support/body-request.js';
import { MB, rssWatch, startTsChild, type Child } from '../support/processes.js';
import { fmt, median, type BenchContext, type Row, type SectionResult } from '../support/report.js';
import { pagesFor, writeTiffStack } from '../support/tiff-stack.js';
import type { UploadPlan, UploadResponse } from '../../openapi/generated/client/types.gen.js';

async function multipartUploadOf(base: string, file: string, size: number): Promise<string> {
  const image = await multipartUpload(base, ACME_KEY, path.basename(file), { file, size });
  if (image.upload_status !== 'ready')
    throw new Error(`multipart upload ended ${image.upload_status}: ${image.upload_error}`);
  return image.id;
}

/** Opens a resumable upload, sends its parts (sendParts), completes it and waits for `ready`. */
async function resumableUpload(
  api: HttpApi,
  file: string,
  size: number,
  concurrency: number,
): Promise<{ id: string; parts: number; partSize: number; partsSeconds: number; completeSeconds: number }> {
  const t = performance.now();
  const open = await api.json<UploadResponse & { upload: UploadPlan }>('POST', '/api/v1/upload', {
    name: path.basename(file),
    size,
  });
  const { part_size: partSize, urls } = open.upload;
  await sendParts(file, size, partSize, urls, concurrency);
  const partsSeconds = (performance.now() - t) / 1000;
  await api.json('POST', `/api/v1/upload/${open.image.id}/complete`, undefined, 202);
  // The complete's own share (assembly and flush), apart from the conversion that follows it.
  const completeSeconds = (performance.now() - t) / 1000 - partsSeconds;
  const done = await api.pollImage(open.image.id, { intervalMs: 50 });
  if (done.upload_status !== 'ready')
    throw new Error(`resumable upload ended ${done.upload_status}: ${done.upload_error}`);
  return { id: open.image.id, parts: urls.length, partSize, partsSeconds, completeSeconds };
}

/**
 * Part PUTs `concurrency` at a time, as S3 clients send them (1: one after the other). Each sender
 * reads its part into a buffer of its own, reused from part to part, and sends it from memory, as
 * S3's SDKs send a part. Piping a file stream into each request instead cost this client 13-15 ms
 * of CPU a part against 5 (8 MiB parts, one at a time): eight 1 MiB reads, each a new buffer for
 * the collector, each waiting for the socket to drain, on the two cores the mock runs on too.
 */
async function sendParts(
  file: string,
  size: number,
  partSize: number,
  urls: Array<{ part_number: number; url: string }>,
  concurrency: number,
): Promise<void> {
  const queue = [...urls];
  const source = await openFile(file, 'r');
  const sender = async () => {
    const part = Buffer.allocUnsafe(partSize);
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const { part_number: n, url } = next;
      const start = (n - 1) * partSize;
      const bytes = await readRange(source, part, start, Math.min(size, n * partSize) - start);
      const res = await sendBody(url, 'PUT', { 'content-type': 'application/octet-stream' }, { bytes });
      if (res.status !== 200) throw new Error(`PUT part ${n}: ${res.status} ${res.body.slice(0, 300)}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, sender));
  } finally {
    await source.close();
  }
}

/**
 * The same parts, sent the same way, to the floor peer (part-floor-child.ts: each part written at
 * its offset, MD5ed and flushed before its 200, nothing else): seconds from the first PUT to the
 * last 200.
 */
async function floorUpload(
  floor: Child,
  file: string,
  size: number,
  partSize: number,
  concurrency: number,
): Promise<number> {
  const name = `${path.basename(file)}.c${concurrency}`;
  const urls = Array.from({ length: Math.ceil(size / partSize) }, (_, i) => ({
    part_number: i + 1,
    url: `${floor.url}/${name}/${i + 1}?partSize=${partSize}`,
  }));
  const t = performance.now();
  await sendParts(file, size, partSize, urls, concurrency);
  return (performance.now() - t) / 1000;
}

/** `length` bytes of the file from `start`, read into the front of `into`. */
async function readRange(file: FileHandle, into: Buffer, start: number, length: number): Promise<Buffer> {
  for (let got = 0; got < length;) {
    const { bytesRead } = await file.read(into, got, length - got, start + got);
    if (bytesRead === 0) throw new Error(`the file ends ${length - got} bytes before the part does`);
    got += bytesRead;
  }
  return into.subarray(0, length);
}

async function timed<T>(work: () => Promise<T>): Promise<{ seconds: number; value: T }> {
  const t = performance.now();
  const value = await work();
  return { seconds: (performance.now() - t) / 1000, value };
}

const PARALLEL_PARTS = 4;
/**
 * The whole resumable flow: open, every part PUT (each flushed before its 200), complete and conversion to `ready`,
 * against a stream copy of the file that fsyncs once.
 */
const RESUMABLE_RATIO = 0.6;
const RESUMABLE_TARGET = `>= ${RESUMABLE_RATIO}x of stream copy`;
const MODES = ['multipart', 'resumable', `resumable, ${PARALLEL_PARTS} parts at a time`] as const;

export async function runUploadBench(ctx: BenchContext, mock: Child): Promise<SectionResult> {
  const api = new HttpApi(mock.url, ACME_KEY);
  const targets = ctx.quick ? [16 * MB, 64 * MB] : [100 * MB, 1024 * MB];
  const copies = ctx.quick ? 1 : 2;
  const rows: Row[] = [];
  const results: Array<Record<string, number | string>> = [];
  const idle = (await mock.mem(true)).rss;
  const floorDir = path.join(ctx.tmpDir, 'part-floor');
  await mkdir(floorDir, { recursive: true });
  const floor = await startTsChild('bench/support/part-floor-child.ts', [], {
    env: { PART_FLOOR_DIR: floorDir },
  });
  try {
    for (const target of targets) {
      const file = path.join(ctx.tmpDir, `stack-${Math.round(target / MB)}mb.tif`);
      const copy = `${file}.copy`;
      try {
        ctx.log(
          `uploads: writing a ${fmt.mb(target)} TIFF stack (${pagesFor(target)} pages of 2048x2048x16-bit)`,
        );
        const size = await writeTiffStack(file, pagesFor(target));

        const copyFileS: number[] = [];
        const streamS: number[] = [];
        for (let i = 0; i < copies; i++) {
          copyFileS.push((await timed(() => copyFile(file, copy))).seconds);
          await rm(copy, { force: true });
          // The peer the issue names: a stream copy that also fsyncs once (flush: true), as an
          // acknowledged upload must reach the disk.
          streamS.push(
            (await timed(() => pipeline(createReadStream(file), createWriteStream(copy, { flush: true }))))
              .seconds,
          );
          await rm(copy, { force: true });
        }
        const cf = median(copyFileS);
        const sc = median(streamS);

        for (const mode of MODES) {
          ctx.log(`uploads: ${mode} ${fmt.mb(size)}`);
          await mock.mem(true);
          const watch = rssWatch(mock.pid);
          const run = await timed(async () =>
            mode === 'multipart'
              ? {
                  id: await multipartUploadOf(mock.url, file, size),
                  parts: 1,
                  partSize: NaN,
                  partsSeconds: NaN,
                  completeSeconds: NaN,
                }
              : resumableUpload(api, file, size, mode === 'resumable' ? 1 : PARALLEL_PARTS),
          );
          const rss = watch.stop();
          await api.json('DELETE', `/api/v1/upload/${run.value.id}`);
          // The floor takes its turn right after the mock, with the same parts sent the same way.
          const concurrency = mode === 'resumable' ? 1 : PARALLEL_PARTS;
          const floorS =
            mode === 'multipart'
              ? NaN
              : await floorUpload(floor, file, size, run.value.partSize, concurrency);
          await rm(floorDir, { recursive: true, force: true });
          await mkdir(floorDir, { recursive: true });
          const result = {
            mode,
            bytes: size,
            seconds: run.seconds,
            bytesPerSecond: size / run.seconds,
            copyFileSeconds: cf,
            streamCopySeconds: sc,
            parts: run.value.parts,
            partsSeconds: run.value.partsSeconds,
            completeSeconds: run.value.completeSeconds,
            partFloorSeconds: floorS,
            rssBefore: rss.start,
            rssPeak: rss.peak,
            rssAfter: rss.end,
            rssIdle: idle,
          };
          results.push(result);
          ctx.log(
            `uploads: ${mode} ${fmt.mb(size)} in ${run.seconds.toFixed(2)} s (${fmt.mbps(size / run.seconds)}), ` +
              `copyFile ${cf.toFixed(2)} s, stream copy ${sc.toFixed(2)} s, mock RSS peak ${fmt.mb(rss.peak)} (before ${fmt.mb(rss.start)})`,
          );
          rows.push({
            section: 'Uploads',
            metric: `${mode} ${fmt.mb(size)}${mode !== 'multipart' ? ` (${run.value.parts} parts)` : ''}: throughput`,
            ours:
              `${fmt.mbps(size / run.seconds)} (${run.seconds.toFixed(2)} s` +
              (mode !== 'multipart'
                ? `: PUTs ${run.value.partsSeconds.toFixed(2)} s, complete to ready ${(run.seconds - run.value.partsSeconds).toFixed(2)} s, of which the complete call ${run.value.completeSeconds.toFixed(2)} s)`
                : ', response after conversion)'),
            peer:
              `fs.copyFile ${fmt.mbps(size / cf)}; stream copy + fsync ${fmt.mbps(size / sc)}` +
              (mode === 'multipart'
                ? ''
                : `; part floor (bare node:http: each part written, MD5ed, flushed) ${fmt.mbps(size / floorS)}, ` +
                  `${fmt.x(sc / floorS)} of stream copy + fsync`),
            ratio:
              `${fmt.x(cf / run.seconds)} of copyFile, ${fmt.x(sc / run.seconds)} of stream copy + fsync` +
              (mode === 'multipart'
                ? ''
                : `; PUTs ${fmt.x(floorS / run.value.partsSeconds)} of the part floor's`),
            ...(mode !== 'multipart' && target === targets[targets.length - 1]
              ? { target: RESUMABLE_TARGET, ok: sc / run.seconds >= RESUMABLE_RATIO }
              : { target: 'none (copy is the ceiling)', ok: null }),
          });
        }
      } finally {
        await rm(file, { force: true });
        await rm(copy, { force: true });
      }
    }
  } finally {
    await floor.stop();
    await rm(floorDir, { recursive: true, force: true });
  }

  for (const mode of MODES) {
    const [small, large] = results.filter((r) => r.mode === mode);
    const extraBytes = (large.bytes as number) - (small.bytes as number);
    const marginal = extraBytes / ((large.seconds as number) - (small.seconds as number));
    const copyMarginal =
      extraBytes / ((large.copyFileSeconds as number) - (small.copyFileSeconds as number) || NaN);
    const streamMarginal =
      extraBytes / ((large.streamCopySeconds as number) - (small.streamCopySeconds as number) || NaN);
    rows.push({
      section: 'Uploads',
      metric: `${mode}: marginal throughput from ${fmt.mb(small.bytes as number)} to ${fmt.mb(large.bytes as number)} (fixed costs such as conversion cancel out)`,
      ours: fmt.mbps(marginal),
      peer: `fs.copyFile ${fmt.mbps(copyMarginal)}; stream copy + fsync ${fmt.mbps(streamMarginal)}`,
      ratio: `${fmt.x(marginal / streamMarginal)} of stream copy + fsync`,
      ...(mode !== 'multipart'
        ? { target: RESUMABLE_TARGET, ok: marginal / streamMarginal >= RESUMABLE_RATIO }
        : { target: 'none', ok: null }),
    });
    const rise = (large.rssPeak as number) - (large.rssBefore as number);
    const grow = (large.rssPeak as number) - (small.rssPeak as number);
    rows.push({
      section: 'Uploads',
      metric: `${mode}: mock peak RSS, ${fmt.mb(large.bytes as number)} vs ${fmt.mb(small.bytes as number)} file`,
      ours: `${fmt.mb(large.rssPeak as number)} (+${fmt.mb(rise)} over the ${fmt.mb(large.rssBefore as number)} before it)`,
      peer: `${fmt.mb(small.bytes as number)} file: ${fmt.mb(small.rssPeak as number)}`,
      ratio: `${fmt.x((large.rssPeak as number) / (small.rssPeak as number))} for ${fmt.x((large.bytes as number) / (small.bytes as number))} the bytes`,
      target: 'flat: rise < 100 MB, and within 100 MB of the small file',
      ok: rise < 100 * MB && grow < 100 * MB,
    });
  }
  return { rows, data: { idleRss: idle, uploads: results } };
}
