/**
 * One grey plane of an image, row-major, top row first. This is what the segmentation engines
 * consume and what raster decoding produces: plain typed arrays, no I/O.
 */
export type PlaneData = Uint8Array | Uint16Array;

export interface Plane {
  readonly width: number;
  readonly height: number;
  /** Unsigned integers: the decoder rescales every other sample format to 16 bits (decode-plane.ts). */
  readonly bitsPerSample: 8 | 16;
  readonly data: PlaneData;
}
