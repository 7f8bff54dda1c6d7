export interface TiffInfo {
  bigTiff: boolean;
  littleEndian: boolean;
  /** Full-resolution pages of the first page's geometry (see module docs). */
  pages: number;
  width: number;
  height: number;
  samplesPerPixel: number;
  bitsPerSample: number;
  sampleFormat: 'uint' | 'int' | 'float';
  /** TIFF Compression tag value: 1 none, 5 LZW, 7 JPEG, 8/32946 deflate, 32773 PackBits, ... */
  compression: number;
  tiled: boolean;
  /** Strip (or tile) offsets and byte counts of the first page, in file order of the tags. */
  chunkOffsets: number[];
  chunkByteCounts: number[];
  tileWidth?: number;
  tileHeight?: number;
  fileSize: number;
  shape: number[];
}
