import type { Finding } from './exchange.js';
import type { RgbPixels } from './png.js';
import { decodePng } from './png.js';
import type { DrawnOverlay, SegmentationRecord } from './world.js';

/**
 * The overlay's drawing options, judged by comparing overlays of one segmentation that differ in a
 * single option, so nothing needs the image or the cells' geometry: two overlays that differ only
 * in `outline_color` differ where the outlines are, each drawn in its own colour; one with
 * `fill_opacity` a differs from the unfilled one (0, the default) where the fill is, each such
 * pixel the unfilled one blended a of the way toward the fill's colour (`outline_color`, the
 * document). A PNG the oracle cannot decode, or too few differing pixels to judge, is left alone.
 */
const S = {
  outline:
    'outline_color: Outline colour as six hex digits, without `#` (the overlay draws each outline in it)',
  fill: 'fill_opacity: Opacity of a translucent fill of `outline_color` inside each outline, 0 (none) to 1 (a filled pixel is the unfilled one blended toward the colour by the opacity)',
};
const DEFAULT_OUTLINE = 'FFFF00';
/** Fewer differing pixels than this say nothing of a drawing. */
const MIN_PIXELS = 20;
/** Levels per channel a blend may be off: rounding either way. */
const BLEND_TOLERANCE = 3;
/** Overlays kept per segmentation to compare later ones with. */
const KEPT = 8;

export function observeOverlayOptions(
  s: SegmentationRecord,
  url: URL,
  bytes: Buffer,
  findings: Finding[],
): void {
  const outline = (url.searchParams.get('outline_color') ?? DEFAULT_OUTLINE).toUpperCase();
  const fill = Number(url.searchParams.get('fill_opacity') ?? 0);
  if (!/^[0-9A-F]{6}$/.test(outline) || !(fill >= 0 && fill <= 1)) return;
  const pixels = decodePng(bytes);
  if (!pixels) return;
  const drawn: DrawnOverlay = { outline, fill, maxSize: url.searchParams.get('max_size') ?? '', pixels };
  s.overlays ??= [];
  for (const earlier of s.overlays) {
    const p = earlier.pixels;
    if (earlier.maxSize !== drawn.maxSize || p.width !== pixels.width || p.height !== pixels.height) continue;
    if (earlier.fill === 0 && fill === 0 && earlier.outline !== outline)
      outlinesInTheirColours(earlier, drawn, findings);
    if (earlier.outline === outline && (earlier.fill === 0) !== (fill === 0))
      fillBlended(earlier.fill === 0 ? earlier : drawn, earlier.fill === 0 ? drawn : earlier, findings);
  }
  const seen = s.overlays.some(
    (o) => o.outline === outline && o.fill === fill && o.maxSize === drawn.maxSize,
  );
  if (!seen && s.overlays.length < KEPT) s.overlays.push(drawn);
}

const hex = (rgb: Uint8Array, p: number) =>
  [rgb[3 * p], rgb[3 * p + 1], rgb[3 * p + 2]]
    .map((v) => v.toString(16).padStart(2, '0'))
    .join('')
    .toUpperCase();

function differing(a: RgbPixels, b: RgbPixels): number[] {
  const at: number[] = [];
  for (let p = 0; p < a.width * a.height; p++)
    if (
      a.rgb[3 * p] !== b.rgb[3 * p] ||
      a.rgb[3 * p + 1] !== b.rgb[3 * p + 1] ||
      a.rgb[3 * p + 2] !== b.rgb[3 * p + 2]
    )
      at.push(p);
  return at;
}

/** Where two unfilled overlays with different outline colours differ, each shows its own colour most. */
function outlinesInTheirColours(a: DrawnOverlay, b: DrawnOverlay, findings: Finding[]): void {
  const at = differing(a.pixels, b.pixels);
  if (at.length < MIN_PIXELS) return;
  for (const [one, other] of [
    [a, b],
    [b, a],
  ]) {
    const counts = new Map<string, number>();
    for (const p of at) {
      const colour = hex(one.pixels.rgb, p);
      counts.set(colour, (counts.get(colour) ?? 0) + 1);
    }
    const [most, count] = [...counts].sort((x, y) => y[1] - x[1])[0];
    if (most !== one.outline)
      findings.push({
        sentence: S.outline,
        subject: `exportOverlayPng?outline_color=${one.outline}: colour of the ${at.length} pixels where it differs from the ${other.outline} overlay`,
        predicted: one.outline,
        received: `${most} (${count} of them)`,
      });
  }
}

const toLinear = (v: number) => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};
const toSrgb = (c: number) => Math.round(255 * (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055));
const linearBlend = (from: number, to: number, a: number) =>
  toSrgb(toLinear(from) + a * (toLinear(to) - toLinear(from)));

/** Where a filled overlay differs from the unfilled one, its pixels are the blend the opacity gives. */
function fillBlended(unfilled: DrawnOverlay, filled: DrawnOverlay, findings: Finding[]): void {
  const at = differing(unfilled.pixels, filled.pixels);
  if (at.length < MIN_PIXELS) return;
  const colour = [0, 2, 4].map((i) => parseInt(filled.outline.slice(i, i + 2), 16));
  const a = filled.fill;
  let off = 0;
  let example = '';
  for (const p of at) {
    const before = [0, 1, 2].map((k) => unfilled.pixels.rgb[3 * p + k]);
    const after = [0, 1, 2].map((k) => filled.pixels.rgb[3 * p + k]);
    const blend = before.map((v, k) => Math.round(v + a * (colour[k] - v)));
    const near = (predicted: number[]) =>
      predicted.every((v, k) => Math.abs(v - after[k]) <= BLEND_TOLERANCE);
    // "blended" names no colour space: a blend of the sRGB values or of linear light, either one
    if (near(blend) || near(before.map((v, k) => linearBlend(v, colour[k], a)))) continue;
    if (!off++) {
      const x = p % unfilled.pixels.width;
      example = `(${x}, ${(p - x) / unfilled.pixels.width}): rgb(${before}) blended to rgb(${blend}), drawn rgb(${after})`;
    }
  }
  // edge pixels a target draws its own way (anti-aliasing) may miss the blend; most may not
  if (off * 2 > at.length)
    findings.push({
      sentence: S.fill,
      subject: `exportOverlayPng?fill_opacity=${a}&outline_color=${filled.outline}: pixels that differ from the unfilled overlay`,
      predicted: `each the unfilled pixel blended ${a} of the way to ${filled.outline}`,
      received: `${off} of ${at.length} are not, e.g. at ${example}`,
    });
}
