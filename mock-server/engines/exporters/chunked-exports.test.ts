import { parse as parseCsv } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { CSV_CHUNK_ROWS, CSV_COLUMNS, measurementsCsvChunks } from './measurements-csv.js';
import { GEOJSON_CHUNK_FEATURES, roisGeoJson, roisGeoJsonChunks } from './rois-geojson.js';
import type { SegmentationResult } from '../segmentation/types.js';
import { contextFor } from '../../../test-support/exporters/fixtures.js';

/** Many one-pixel-square cells on a grid: more objects than one chunk holds. */
function manyCells(count: number): SegmentationResult {
  const width = 2 * Math.ceil(Math.sqrt(count));
  const objects = Array.from({ length: count }, (_, i) => {
    const x = (i % (width / 2)) * 2;
    const y = Math.floor(i / (width / 2)) * 2;
    return {
      label: i + 1,
      outline: [
        [x, y],
        [x, y + 1],
        [x + 1, y + 1],
        [x + 1, y],
      ] as Array<[number, number]>,
      measurements: {
        areaPx: 1,
        perimeterPx: 4,
        centroidX: x + 0.5,
        centroidY: y + 0.5,
        bbox: { x, y, width: 1, height: 1 },
      },
    };
  });
  return { width, height: width, objects };
}

describe('exports written in chunks, for streaming', () => {
  const count = 2 * Math.max(CSV_CHUNK_ROWS, GEOJSON_CHUNK_FEATURES) + 7;
  const ctx = contextFor(manyCells(count));

  it('CSV: one header, then every row once, in ROI order, across several chunks', () => {
    const chunks = [...measurementsCsvChunks(ctx, CSV_COLUMNS)];
    expect(chunks.length).toBeGreaterThan(2);
    const rows = parseCsv(chunks.join('')) as string[][];
    expect(rows[0][0]).toBe('image_name');
    expect(rows).toHaveLength(count + 1);
    expect(rows.slice(1).map((r) => Number(r[7]))).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  });

  it('GeoJSON: the chunks join to exactly the document roisGeoJson builds', () => {
    const chunks = [...roisGeoJsonChunks(ctx)];
    expect(chunks.length).toBeGreaterThan(3);
    expect(JSON.parse(chunks.join(''))).toEqual(roisGeoJson(ctx));
  });

  it('GeoJSON: an empty segmentation is an empty collection', () => {
    const empty = contextFor({ width: 4, height: 4, objects: [] });
    expect(JSON.parse([...roisGeoJsonChunks(empty)].join(''))).toEqual({
      type: 'FeatureCollection',
      features: [],
    });
  });
});

describe('the ROI zip, generated as it is sent', () => {
  it('streams exactly the bytes of the buffered zip', async () => {
    const { roisZip, roisZipStream } = await import('./rois-zip.js');
    const ctx = contextFor(manyCells(300));
    const chunks: Buffer[] = [];
    await new Promise<void>((resolve, reject) => {
      roisZipStream(ctx)
        .on('data', (chunk: Buffer) => chunks.push(chunk))
        .on('end', resolve)
        .on('error', reject);
    });
    expect(chunks.length).toBeGreaterThan(1);
    expect(Buffer.concat(chunks).equals(await roisZip(ctx))).toBe(true);
  });
});
