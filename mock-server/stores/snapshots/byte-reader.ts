/**
 * Reads a byte stream in the pieces a tar needs (a 512-byte header, an entry's content in chunks),
 * pulling the next chunk from the source only when the last one is used up: a slow disk slows the
 * sender down instead of filling memory.
 */
import { SnapshotRefused } from '../../domain/snapshots/snapshot-format.js';

export class ByteReader {
  private readonly source: AsyncIterator<Uint8Array>;
  private pending: Buffer = Buffer.alloc(0);
  private ended = false;

  constructor(input: AsyncIterable<Uint8Array>) {
    this.source = input[Symbol.asyncIterator]();
  }

  private async fill(): Promise<boolean> {
    if (this.ended) return false;
    const next = await this.source.next();
    if (next.done) {
      this.ended = true;
      return false;
    }
    const chunk = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    return true;
  }

  /** Exactly `size` bytes, or undefined when the stream ends before any arrived. */
  async takeOrEnd(size: number): Promise<Buffer | undefined> {
    while (this.pending.length < size) {
      if (!(await this.fill())) {
        if (this.pending.length === 0) return undefined;
        throw new SnapshotRefused('the archive is cut short in the middle of a header');
      }
    }
    const taken = this.pending.subarray(0, size);
    this.pending = this.pending.subarray(size);
    return taken;
  }

  /** Exactly `size` bytes of the entry `name` (small entries only: it is held in memory). */
  async take(size: number, name: string): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const chunk of this.chunks(size, name)) parts.push(chunk);
    return Buffer.concat(parts);
  }

  /** `size` bytes of the entry `name`, as they arrive. */
  async *chunks(size: number, name: string): AsyncGenerator<Buffer> {
    let left = size;
    while (left > 0) {
      if (this.pending.length === 0 && !(await this.fill()))
        throw new SnapshotRefused(`the archive is cut short in the middle of "${name}"`);
      const piece = this.pending.subarray(0, Math.min(left, this.pending.length));
      this.pending = this.pending.subarray(piece.length);
      left -= piece.length;
      yield piece;
    }
  }

  async skip(size: number): Promise<void> {
    for await (const chunk of this.chunks(size, 'padding')) void chunk;
  }
}
