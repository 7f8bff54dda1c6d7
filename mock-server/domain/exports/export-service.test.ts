/**
 * The export use case against stand-ins for its ports: an export is rendered once per variant and
 * then served from what was kept, simultaneous first asks render once, and a full disk costs the
 * kept copy, not the answer.
 */
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import type { Organization } from '../organization-record.js';
import type { SegmentationRecord } from '../predictions/prediction-record.js';
import type { SegmentationReader } from '../segmentations/segmentation-reader.js';
import { ExportService } from './export-service.js';
import { heldInMemory, type ExportBody, type KeptExport, type KeptExports } from './kept-exports.js';

const org = { id: 'org' } as Organization;
const segmentation: SegmentationRecord = {
  id: 'seg',
  organizationId: 'org',
  predictionId: 'pred',
  imageId: 'img',
  imageName: 'plate.tif',
  modelId: 'model',
  modelName: 'nuclei',
  source: 'mock-threshold/1.0.0',
  cellCount: 0,
  roiIds: [],
  hasPreview: false,
  createdAt: '2026-11-25T00:00:00.000Z',
  result: { width: 4, height: 3, objects: [] },
  previewPath: null,
};

function world(keep: (body: ExportBody) => Promise<KeptExport | undefined>) {
  const loads: string[] = [];
  const kept = new Map<string, KeptExport>();
  const reader = {
    row: async () => segmentation,
    load: async (id: string) => {
      loads.push(id);
      return segmentation;
    },
    previewBytes: async () => undefined,
  } as unknown as SegmentationReader;
  const store: KeptExports = {
    find: async (_id, key) => kept.get(key),
    keep: async (_id, key, body) => {
      const made = await keep(body);
      if (made) kept.set(key, made);
      return made;
    },
  };
  return { service: new ExportService(reader, store), loads, kept };
}

describe('the export service', () => {
  it('renders a variant once and answers later asks from what was kept', async () => {
    const { service, loads, kept } = world(heldInMemory);
    const [a, b] = await Promise.all([
      service.measurementsCsv(org, 'seg', []),
      service.measurementsCsv(org, 'seg', []),
    ]);
    expect(loads).toHaveLength(1);
    const c = await service.measurementsCsv(org, 'seg', []);
    expect(loads).toHaveLength(1);
    expect([b.etag, c.etag]).toEqual([a.etag, a.etag]);
    expect(await text(await c.open())).toMatch(/^image_name,/);
    await service.measurementsCsv(org, 'seg', ['roi_id']);
    await service.roisGeojson(org, 'seg');
    expect(loads).toHaveLength(3);
    expect(kept.size).toBe(3);
  });

  it('answers from memory, with the same ETag, when the disk is too full to keep the render', async () => {
    const full = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    const { service } = world(async () => {
      throw full;
    });
    const answer = await service.roisGeojson(org, 'seg');
    const bytes = await text(await answer.open());
    expect(JSON.parse(bytes)).toMatchObject({ type: 'FeatureCollection', features: [] });
    expect(answer.etag).toBe((await heldInMemory([bytes])).etag);
    expect(answer.size).toBe(Buffer.byteLength(bytes));
  });

  it('answers from memory when the kept render is evicted again before it is read', async () => {
    // More variants rendered at once than are kept: each render's file goes before its reader opens it.
    const { service } = world(async (body) => ({
      ...(await heldInMemory(body)),
      open: async () => undefined,
    }));
    const answer = await service.roisGeojson(org, 'seg');
    const bytes = await text(await answer.open());
    expect(JSON.parse(bytes)).toMatchObject({ type: 'FeatureCollection', features: [] });
    expect(answer.etag).toBe((await heldInMemory([bytes])).etag);
  });

  it('lets any other failure to keep the render through', async () => {
    const { service } = world(async () => {
      throw Object.assign(new Error('permission denied'), { code: 'EACCES' });
    });
    await expect(service.roisGeojson(org, 'seg')).rejects.toThrow('permission denied');
  });
});
