/** An overlay option out of its range; a module of its own so that checking for it loads no libvips. */
export class OverlayOptionError extends Error {
  constructor(
    readonly parameter: string,
    readonly value: unknown,
    expected: string,
  ) {
    super(`${parameter} must be ${expected}, got ${JSON.stringify(value) ?? String(value)}`);
    this.name = 'OverlayOptionError';
  }
}
