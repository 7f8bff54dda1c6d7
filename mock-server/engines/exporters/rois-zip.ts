/**
 * `rois.zip`: one ImageJ traced ROI per cell, in ROI order, as ImageJ's ROI Manager saves a set
 * ("More > Save..."): entries `<name>.roi` where name is the RoiManager label (`roi-names.ts`,
 * unique, `-1`, `-2` on repeats) and the same name inside each ROI's header2.
 *
 * Every entry is DEFLATE-compressed (ImageJ reads the zip with java.util.zip.ZipInputStream, which
 * rejects STORED entries that use a data descriptor), and every entry carries the same fixed date,
 * so the same segmentation always gives the same bytes.
 */
import JSZip from 'jszip';
import { assertExportable, type ExportContext } from './export-context.js';
import { encodeTracedRoi } from './imagej-roi.js';
import { uniqueRoiNames } from './roi-names.js';

/** DOS timestamps start in 1980; jszip writes the date with UTC getters, so this is zone-free. */
export const ZIP_ENTRY_DATE = new Date(Date.UTC(2000, 0, 1, 0, 0, 0));
export const ZIP_DEFLATE_LEVEL = 6;

const GENERATE_OPTIONS = {
  compression: 'DEFLATE',
  compressionOptions: { level: ZIP_DEFLATE_LEVEL },
  platform: 'DOS',
  streamFiles: false,
} as const;

export async function roisZip(ctx: ExportContext): Promise<Buffer> {
  return buildZip(ctx).generateAsync({ type: 'nodebuffer', ...GENERATE_OPTIONS });
}

/** The same bytes as `roisZip`, generated as they are sent. */
export function roisZipStream(ctx: ExportContext): NodeJS.ReadableStream {
  return buildZip(ctx).generateNodeStream({ type: 'nodebuffer', ...GENERATE_OPTIONS });
}

function buildZip(ctx: ExportContext): JSZip {
  assertExportable(ctx);
  const outlines = ctx.result.objects.map((o) => o.outline);
  const names = uniqueRoiNames(outlines, ctx.imageHeight);
  const zip = new JSZip();
  outlines.forEach((ring, i) => {
    zip.file(`${names[i]}.roi`, encodeTracedRoi(ring, names[i]), {
      date: ZIP_ENTRY_DATE,
      binary: true,
      createFolders: false,
    });
  });
  return zip;
}
