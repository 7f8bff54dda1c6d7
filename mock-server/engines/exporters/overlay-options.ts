/**
 * The overlay's options, checked and given their defaults apart from the drawing, so that an
 * answer can be keyed by them (and a bad one refused) without loading libvips.
 */
import { OverlayOptionError } from './overlay-option-error.js';

export interface OverlayOptions {
  /** `#rrggbb` */
  readonly outlineColor?: string;
  /** 0..1 */
  readonly fillOpacity?: number;
  /** Cap on the longest side of the output, in pixels (an integer >= 1). */
  readonly maxSize?: number;
}

export const DEFAULT_OUTLINE_COLOR = '#ffff00';
export const DEFAULT_FILL_OPACITY = 0;

export interface ResolvedOverlayOptions {
  readonly rgb: readonly [number, number, number];
  readonly fillOpacity: number;
  readonly maxSize: number | undefined;
}

export function resolveOverlayOptions(options: OverlayOptions): ResolvedOverlayOptions {
  const color = options.outlineColor ?? DEFAULT_OUTLINE_COLOR;
  if (typeof color !== 'string' || !/^#[0-9a-fA-F]{6}$/.test(color)) {
    throw new OverlayOptionError('outlineColor', color, 'a colour written #rrggbb');
  }
  const fillOpacity = options.fillOpacity ?? DEFAULT_FILL_OPACITY;
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
  return { rgb: [(hex >> 16) & 255, (hex >> 8) & 255, hex & 255], fillOpacity, maxSize };
}
