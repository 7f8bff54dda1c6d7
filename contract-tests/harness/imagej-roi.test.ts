import JSZip from 'jszip';
import { expect, it } from 'vitest';
import { decodeRoiZip } from './imagej-roi.js';

it('inflates a zip bomb no further than the limit, and fails naming it', async () => {
  const zip = new JSZip();
  zip.file('0001-0001.roi', Buffer.alloc(8 * 1024 * 1024));
  const bomb = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
  await expect(decodeRoiZip(bomb, 1_000_000)).rejects.toThrow(
    /^rois\.zip: its entries inflate past the 1000000 bytes the suite reads of one answer \(--max-body-bytes\), at 0001-0001\.roi$/,
  );
});
