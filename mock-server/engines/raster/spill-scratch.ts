/**
 * Where a conversion spills a page that only libvips reads (decode-plane.ts): beside the plane
 * file, removed once decoded. A decoder stopped mid-spill (its time budget, its memory ceiling)
 * cannot remove it, so whoever ran the decoder does (runtime/decoder-pool/convert-in-child.ts).
 */
export function spillScratchPath(planePath: string): string {
  return `${planePath}.decoding.v`;
}
