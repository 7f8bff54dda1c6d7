/**
 * The overlay's options, checked and given their defaults apart from the drawing, so that an
 * answer can be keyed by them (and a bad one refused) without loading libvips.
 */

export interface OverlayOptions {
  /** `#rrggbb` */
  readonly outlineColor?: string;
  /** 0..1 */
  readonly fillOpacity?: number;
  /** Cap on the longest side of the output, in pixels (an integer >= 1). */
  readonly maxSize?: number;
}

/** An option out of its range; its message names the parameter and the value. */
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

/** The options with their defaults (outline yellow, no fill, full size), the colour as RGB. */
export function resolveOverlayOptions(options: OverlayOptions) {
  const color = options.outlineColor ?? '#ffff00';
  if (typeof color !== 'string' || !/^#[0-9a-fA-F]{6}$/.test(color)) {
    throw new OverlayOptionError('outlineColor', color, 'a colour written #rrggbb');
  }
  const fillOpacity = options.fillOpacity ?? 0;
  if (
    typeof fillOpacity !== 'number' ||
    !Number.isFinite(fillOpacity) ||
    fillOpacity < 0 ||
    fillOpacity > 1
  ) {
    throw new OverlayOptionError('fillOpacity', fillOpacity, 'a number from 0 to 1');
  }
  const maxSize = options.maxSize;
  if (
    maxSize !== undefined &&
    (typeof maxSize !== 'number' || !Number.isSafeInteger(maxSize) || maxSize < 1)
  ) {
    throw new OverlayOptionError('maxSize', maxSize, 'an integer of at least 1');
  }
  const hex = parseInt(color.slice(1), 16);
  const rgb = [(hex >> 16) & 255, (hex >> 8) & 255, hex & 255] as const;
  return { rgb, fillOpacity, maxSize };
}
