/**
 * The error a pooled child process's job ends with when the child itself is gone: killed for its
 * time budget, or ended by a signal or an exit of its own (out of memory, a native crash in
 * libvips). `message` is a sentence for the person whose file it was; `reason` lets a caller
 * record that this work killed a decoder, so it is not tried again at start.
 */
export type DecoderCrashReason = 'timeout' | 'crash';

export class DecoderCrashed extends Error {
  constructor(
    readonly reason: DecoderCrashReason,
    message: string,
  ) {
    super(message);
    this.name = 'DecoderCrashed';
  }
}

/** An error a task threw inside a child, carried back by name, message and TiffError kind. */
export class DecoderTaskError extends Error {
  constructor(
    name: string,
    message: string,
    readonly kind?: string,
  ) {
    super(message);
    this.name = name;
  }
}
