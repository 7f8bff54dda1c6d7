import type { FileHandle } from 'node:fs/promises';
import { Writable } from 'node:stream';

/**
 * Writes a stream at a fixed offset of an open file (a part's slot in its upload's data file, or
 * a resent part's own file), one positional write per batch of chunks; the owner of the file
 * flushes it before the part is acknowledged. `stop` lets the owner (a complete, a replacing PUT)
 * end the writing and wait until no write is under way, so nothing lands in the file after it has
 * moved on.
 */
export class SlotWriter extends Writable {
  private position: number;
  private pending: Promise<unknown> = Promise.resolve();
  private stoppedBy: Error | undefined;

  private written = 0;

  constructor(
    private readonly handle: FileHandle,
    offset: number,
    /** Told how many bytes from the offset are written so far, after each write (the part's hash follows them). */
    private readonly onWritten?: (written: number) => void,
  ) {
    super({ highWaterMark: 1 << 20 });
    this.position = offset;
  }

  /** Why the writing was stopped, if it was: the part must not be recorded then. */
  get stopReason(): Error | undefined {
    return this.stoppedBy;
  }

  /** No write starts after this; resolves when the one under way, if any, has finished. */
  async stop(reason: Error): Promise<void> {
    this.stoppedBy ??= reason;
    await this.pending.catch(() => undefined);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.writeBatch([chunk], callback);
  }

  override _writev(
    chunks: Array<{ chunk: Buffer; encoding: BufferEncoding }>,
    callback: (error?: Error | null) => void,
  ): void {
    this.writeBatch(
      chunks.map((c) => c.chunk),
      callback,
    );
  }

  private writeBatch(buffers: Buffer[], callback: (error?: Error | null) => void): void {
    if (this.stoppedBy !== undefined) {
      callback(this.stoppedBy);
      return;
    }
    const at = this.position;
    const size = buffers.reduce((sum, b) => sum + b.length, 0);
    this.position += size;
    this.pending = writeFully(this.handle, buffers, at);
    this.pending.then(() => {
      this.written += size;
      this.onWritten?.(this.written);
      callback();
    }, callback);
  }
}

/** writev may write less than asked (a signal, a nearly full disk); the rest follows until done. */
export async function writeFully(handle: FileHandle, buffers: Buffer[], position: number): Promise<void> {
  let rest = buffers;
  let at = position;
  while (rest.length > 0) {
    const { bytesWritten } = await handle.writev(rest, at);
    if (bytesWritten === 0) throw new Error('The file system accepted no bytes of a write');
    at += bytesWritten;
    rest = skipBytes(rest, bytesWritten);
  }
}

function skipBytes(buffers: Buffer[], count: number): Buffer[] {
  let left = count;
  const out: Buffer[] = [];
  for (const buffer of buffers) {
    if (left >= buffer.length) left -= buffer.length;
    else {
      out.push(left > 0 ? buffer.subarray(left) : buffer);
      left = 0;
    }
  }
  return out;
}
