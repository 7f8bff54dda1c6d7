import { parse } from 'csv-parse/sync';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import type { LabelImage } from '../segmentation/types.js';
import type { ExportContext } from './export-context.js';
import { CSV_COLUMNS, measurementsCsv } from './measurements-csv.js';
import { roisGeoJson } from './rois-geojson.js';
import { roisZip } from './rois-zip.js';
import {
  decodeZipWithImageJ,
  imagejMissing,
  type DecodedRoi,
} from '../../../test-support/exporters/external-tools.js';
import {
  contextFor,
  HAND_HEIGHT,
  HAND_PIXELS,
  HAND_RESULT,
  HAND_WIDTH,
  labelImageOf,
} from '../../../test-support/exporters/fixtures.js';
import { randomResult, type RandomResultOptions } from '../../../test-support/exporters/random-result.js';

interface CentralEntry {
  name: string;
  flags: number;
  method: number;
  time: number;
  date: number;
}

/** Central directory entries, read straight from the bytes. */
function centralDirectory(zip: Buffer): CentralEntry[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const out: CentralEntry[] = [];
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const nameLength = zip.readUInt16LE(at + 28);
    out.push({
      flags: zip.readUInt16LE(at + 8),
      method: zip.readUInt16LE(at + 10),
      time: zip.readUInt16LE(at + 12),
      date: zip.readUInt16LE(at + 14),
      name: zip.toString('utf8', at + 46, at + 46 + nameLength),
    });
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return out;
}

describe('roisZip', () => {
  it('one DEFLATE entry per ROI, in ROI order, RoiManager names, fixed date, no data descriptors', async () => {
    const zip = await roisZip(contextFor(HAND_RESULT));
    const entries = centralDirectory(zip);
    expect(entries.map((e) => e.name)).toEqual([
      '0002-0003.roi',
      '0002-0009.roi',
      '0012-0012.roi',
      '0012-0012-1.roi',
    ]);
    for (const e of entries) {
      expect(e.method).toBe(8);
      expect(e.flags & 0x08).toBe(0);
      expect(e.date).toBe(((2000 - 1980) << 9) | (1 << 5) | 1);
      expect(e.time).toBe(0);
    }
    const loaded = await JSZip.loadAsync(zip);
    const first = await loaded.file('0002-0003.roi')?.async('uint8array');
    expect(first && String.fromCharCode(...first.slice(0, 4))).toBe('Iout');
  });

  it('is byte-identical for the same input, whatever the time zone', async () => {
    const { result } = randomResult(21);
    const a = await roisZip(contextFor(result));
    const tz = process.env.TZ;
    process.env.TZ = 'Pacific/Kiritimati';
    try {
      const b = await roisZip(contextFor(result));
      expect(Buffer.compare(a, b)).toBe(0);
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it('an empty segmentation gives an empty but valid zip', async () => {
    const zip = await roisZip(contextFor({ width: 3, height: 3, objects: [] }));
    expect(Object.keys((await JSZip.loadAsync(zip)).files)).toEqual([]);
  });
});

const noImageJ = imagejMissing();
const skipNote = noImageJ ? ` (skipped: ${noImageJ})` : '';

/** Everything ImageJ reports must agree with the GeoJSON, the CSV and the label image. */
function compareWithImageJ(ctx: ExportContext, labels: LabelImage, decoded: DecodedRoi[]): void {
  const features = roisGeoJson(ctx).features;
  const [header, ...rows] = parse(measurementsCsv(ctx, CSV_COLUMNS)) as string[][];
  const col = (name: string) => header.indexOf(name);
  expect(decoded).toHaveLength(features.length);
  const pixelsOf = new Map<number, string[]>();
  for (let y = 0; y < labels.height; y++) {
    for (let x = 0; x < labels.width; x++) {
      const l = labels.labels[y * labels.width + x];
      if (l > 0) pixelsOf.set(l, [...(pixelsOf.get(l) ?? []), `${x},${y}`]);
    }
  }
  decoded.forEach((roi, i) => {
    const f = features[i];
    const m = f.properties.measurements;
    const at = `ROI ${i + 1} (${roi.entry})`;
    expect(roi.entry, at).toBe(`${f.properties.name}.roi`);
    expect(roi.name, at).toBe(f.properties.name);
    expect(roi.header2Name, at).toBe(f.properties.name);
    expect(roi.version, at).toBe(228);
    expect([roi.type, roi.typeName], at).toEqual([4, 'Traced']); // Roi.TRACED_ROI
    expect(roi.reencodeEqual, `${at}: RoiEncoder re-encodes the decoded ROI to the same bytes`).toBe(true);
    // name as RoiManager.getLabel derives it from ImageJ's own bounds
    const [bx, by, bw, bh] = roi.bounds;
    const label = `${String(by + Math.floor(bh / 2)).padStart(4, '0')}-${String(bx + Math.floor(bw / 2)).padStart(4, '0')}`;
    expect(roi.name, at).toMatch(new RegExp(`^${label}(-[1-9][0-9]*)?$`));
    expect(roi.bounds, at).toEqual([m.bbox_x, m.bbox_y, m.bbox_w, m.bbox_h]);
    const ring = f.geometry.coordinates[0].slice(0, -1);
    expect(roi.x, at).toEqual(ring.map((p) => p[0]));
    expect(roi.y, at).toEqual(ring.map((p) => p[1]));
    expect(roi.pixels, at).toBe(m.area_px);
    const contained = roi.px.map((x, k) => `${x},${roi.py[k]}`).sort();
    expect(contained, `${at}: ImageJ's mask is the object's pixels`).toEqual(
      [...(pixelsOf.get(i + 1) ?? [])].sort(),
    );
    expect(
      Math.abs(roi.length - m.perimeter_px),
      `${at}: getLength ${roi.length} vs perimeter_px ${m.perimeter_px}`,
    ).toBeLessThan(1e-6);
    const row = rows[i];
    expect(Number(row[col('area_px')]), at).toBe(roi.pixels);
    expect(Math.abs(Number(row[col('perimeter_px')]) - roi.length), at).toBeLessThanOrEqual(5e-5);
    expect(
      [col('bbox_x'), col('bbox_y'), col('bbox_w'), col('bbox_h')].map((c) => Number(row[c])),
      at,
    ).toEqual(roi.bounds);
  });
}

describe.skipIf(noImageJ !== null)(
  `ImageJ 1.52i reads rois.zip (RoiDecoder via ZipInputStream)${skipNote}`,
  () => {
    it('hand fixtures: rectangle, L, notched ring, pixel in the ring (repeated name)', async () => {
      const ctx = contextFor(HAND_RESULT);
      const decoded = decodeZipWithImageJ(await roisZip(ctx));
      compareWithImageJ(ctx, labelImageOf(HAND_WIDTH, HAND_HEIGHT, HAND_PIXELS), decoded);
      decoded.forEach((roi, i) =>
        expect(roi.length).toBeCloseTo(HAND_RESULT.objects[i].measurements.perimeterPx, 12),
      );
    });

    const cases: [string, RandomResultOptions][] = [
      ['simple blobs traced by the test tracer', { tracer: 'test' }],
      ['simple blobs through label-image-to-result', {}],
      ['blobs with holes and pinches through label-image-to-result (repaired)', { simple: false }],
    ];
    it.each(cases)('a few hundred random objects: %s', async (_, options) => {
      const { result, labels } = randomResult(1, options);
      const ctx = contextFor(result);
      expect(ctx.result.objects.length).toBeGreaterThan(250);
      compareWithImageJ(ctx, labels, decodeZipWithImageJ(await roisZip(ctx)));
    });
  },
);
