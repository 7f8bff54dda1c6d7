/**
 * The error a pooled child process's job ends with when the child itself is gone: killed for its
 * time budget, or ended by a signal or an exit of its own (out of memory, a native crash in
 * libvips). `message` is a sentence for the person whose file it was, naming the limit it met.
 */
export class DecoderCrashed extends Error {
  constructor(message: string) {
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
