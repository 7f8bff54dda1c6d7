/** Moving a part's bytes: metered, hashed and checked as they arrive, copied into and out of the data file. */
import { createReadStream, createWriteStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { finished, type Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type MultipartPlan, ObjectStoreError } from '../../domain/object-store.js';
import { startMd5 } from './md5-thread.js';
import { SlotWriter } from './slot-writer.js';
import { tooLarge } from './store-errors.js';

const COPY_CHUNK = 1 << 20;
const METER_BUFFER = 1 << 20;

/** What a part PUT declared of its body. */
export interface PartRequest {
  partNumber: number;
  partSize: number;
  contentLength?: number;
  /** From Content-MD5, as hex. */
  expectedMd5?: string;
}

/**
 * Streams a part PUT's body into `handle` at `offset`, hashed on its own thread as it is written
 * (md5-thread.ts), then checks it against what the request declared and flushes it while the hash
 * completes: the 200 waits for both (acknowledged means durable), the event loop for neither.
 * `track` is told the writer first, so a complete or an abort can stop it.
 */
export async function receivePart(
  body: NodeJS.ReadableStream,
  handle: FileHandle,
  offset: number,
  { partNumber, partSize, contentLength, expectedMd5 }: PartRequest,
  track?: (writer: SlotWriter) => void,
): Promise<{ md5: string; size: number }> {
  const meter = new PartMeter(partSize, partNumber);
  const hashing = startMd5({ fd: handle.fd }, offset);
  const writer = new SlotWriter(handle, offset, (written) => hashing.advance(written));
  track?.(writer);
  try {
    await streamBodyTo(body, meter, writer);
    if (contentLength !== undefined && meter.size !== contentLength) {
      throw new ObjectStoreError(
        'IncompleteBody',
        `Part ${partNumber}: received ${meter.size} bytes, Content-Length said ${contentLength}`,
        { partNumber },
      );
    }
    const [md5] = await Promise.all([hashing.finish(meter.size), handle.datasync()]);
    if (expectedMd5 !== undefined && expectedMd5 !== md5) {
      throw new ObjectStoreError(
        'BadDigest',
        `The Content-MD5 you specified did not match what we received for part ${partNumber}`,
        { partNumber },
      );
    }
    return { md5, size: meter.size };
  } finally {
    hashing.drop();
  }
}

/**
 * Like pipeline(body, meter, file), except that a failure never destroys `body`: it is the HTTP
 * request, and destroying it would take the socket with it before the error can be answered.
 * The caller drains or closes it after answering.
 */
export async function streamBodyTo(
  body: NodeJS.ReadableStream,
  meter: PartMeter,
  sink: NodeJS.WritableStream,
): Promise<void> {
  const written = pipeline(meter, sink);
  const stopWatching = finished(body as Readable, (error) => {
    if (error) meter.destroy(error);
  });
  body.pipe(meter);
  try {
    await written;
  } finally {
    body.unpipe(meter);
    stopWatching();
  }
}

/**
 * Counts and caps the bytes of one part as they stream past. Its MD5 is taken from the bytes once
 * written (md5-thread.ts), off the event loop.
 */
export class PartMeter extends Transform {
  size = 0;

  constructor(
    private readonly limit: number,
    private readonly partNumber: number,
  ) {
    // Buffers as much as the slot writer does: at the default 16 KiB every 64 KiB socket read
    // overfilled it, pausing and resuming the socket once per read.
    super({ highWaterMark: METER_BUFFER });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.limit) {
      callback(tooLarge(this.partNumber, this.limit));
      return;
    }
    callback(null, chunk);
  }
}

export function partOffset(plan: MultipartPlan, partNumber: number): number {
  return (partNumber - 1) * plan.partSize;
}

/** Where a part's bytes are: its slot of the data file, or its own file. */
export interface ByteRange {
  file: string;
  start: number;
  size: number;
}

/** Parts other than one data file's slots 1..k: each part's bytes copied, in order, into a new file. */
export async function copyRanges(ranges: readonly ByteRange[], target: string): Promise<void> {
  async function* bytes(): AsyncGenerator<Buffer> {
    for (const { file, start, size } of ranges) {
      if (size === 0) continue;
      yield* createReadStream(file, { start, end: start + size - 1, highWaterMark: COPY_CHUNK });
    }
  }
  await pipeline(bytes(), createWriteStream(target, { flags: 'wx' }));
}
