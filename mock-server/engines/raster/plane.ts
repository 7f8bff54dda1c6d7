/**
 * One grey plane of an image, row-major, top row first. This is what the segmentation engines
 * consume and what raster decoding produces: plain typed arrays, no I/O.
 */
export type PlaneData = Uint8Array | Uint16Array | Float32Array;

export interface Plane {
  readonly width: number;
  readonly height: number;
  /** 8 and 16 are unsigned integers; 32 is IEEE float. */
  readonly bitsPerSample: 8 | 16 | 32;
  readonly data: PlaneData;
}
