/**
 * Exports of an unchanged segmentation are rendered once, kept with it and served as files: the
 * second ask streams the same file (no new render), carries the same strong ETag, and a client that
 * holds it gets 304; options that change the bytes change the ETag; the renders go with the
 * segmentation; a kept file that is not whole is never served.
 */
import { readdir, stat, truncate } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME_KEY, apiClient, type CompletedSegmentation } from '../../../test-support/api-client.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import type { RunningMock } from '../../server.js';

let mock: RunningMock;
let done: CompletedSegmentation;
beforeAll(async () => {
  mock = await startInstantMock();
  done = await apiClient(mock.url).completedSegmentation();
});
afterAll(() => mock.close());

const EXPORTS = ['measurements.csv', 'rois.geojson', 'rois.zip', 'overlay.png'];

async function get(
  exportPath: string,
  headers: Record<string, string> = {},
  segmentationId = done.segmentationId,
) {
  const response = await fetch(`${mock.url}/api/v1/export/${segmentationId}/${exportPath}`, {
    headers: { authorization: `Bearer ${ACME_KEY}`, ...headers },
  });
  return {
    status: response.status,
    headers: response.headers,
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

const keptFolder = (id = done.segmentationId) => mock.services.paths.keptExportsOf(id);

async function keptFiles(id = done.segmentationId): Promise<Map<string, { ino: number; mtimeMs: number }>> {
  const names = await readdir(keptFolder(id)).catch(() => [] as string[]);
  const files = new Map<string, { ino: number; mtimeMs: number }>();
  for (const name of names) {
    const { ino, mtimeMs } = await stat(path.join(keptFolder(id), name));
    files.set(name, { ino, mtimeMs });
  }
  return files;
}

describe('kept exports', () => {
  it('serve the second ask from the file the first one rendered, with the same bytes and ETag', async () => {
    for (const name of EXPORTS) {
      const first = await get(name);
      expect(first.status, name).toBe(200);
      const etag = first.headers.get('etag');
      expect(etag, name).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      expect(first.headers.get('content-length')).toBe(String(first.bytes.length));
      const kept = await keptFiles();
      const second = await get(name);
      expect(second.headers.get('etag'), name).toBe(etag);
      expect(second.bytes.equals(first.bytes), name).toBe(true);
      // Not rendered again: the same file (a new render would have been renamed in as a new inode).
      expect(await keptFiles(), name).toEqual(kept);
    }
    expect((await keptFiles()).size).toBe(EXPORTS.length);
  });

  it('answer 304 with no body to a client that holds the same ETag, 200 to one that does not', async () => {
    for (const name of EXPORTS) {
      const { headers } = await get(name);
      const etag = headers.get('etag')!;
      for (const held of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const again = await get(name, { 'if-none-match': held });
        expect(again.status, `${name} If-None-Match: ${held}`).toBe(304);
        expect(again.bytes.length).toBe(0);
        expect(again.headers.get('etag')).toBe(etag);
      }
      const stale = await get(name, { 'if-none-match': '"not-this-one"' });
      expect(stale.status).toBe(200);
      expect(stale.bytes.length).toBeGreaterThan(0);
    }
  });

  it('give options that change the bytes their own ETag, and the same options written otherwise the same', async () => {
    const etagOf = async (exportPath: string) => {
      const answer = await get(exportPath);
      expect(answer.status, exportPath).toBe(200);
      return answer.headers.get('etag');
    };
    const overlay = await etagOf('overlay.png');
    expect(await etagOf('overlay.png?outline_color=FFFF00')).toBe(overlay);
    expect(await etagOf('overlay.png?outline_color=ffff00&fill_opacity=0')).toBe(overlay);
    const red = await etagOf('overlay.png?outline_color=FF0000');
    const filled = await etagOf('overlay.png?fill_opacity=0.5');
    const small = await etagOf('overlay.png?max_size=64');
    expect(new Set([overlay, red, filled, small]).size).toBe(4);

    const csv = await etagOf('measurements.csv');
    const two = await etagOf('measurements.csv?columns=roi_id&columns=area_px');
    const swapped = await etagOf('measurements.csv?columns=area_px&columns=roi_id');
    expect(new Set([csv, two, swapped]).size).toBe(3);
  });

  it('never serve a kept file that is not whole: it is rendered again', async () => {
    const whole = await get('rois.geojson');
    const [name] = [...(await keptFiles()).keys()].filter((n) => n.endsWith(`.${whole.bytes.length}`));
    await truncate(path.join(keptFolder(), name), 10);
    const again = await get('rois.geojson');
    expect(again.status).toBe(200);
    expect(again.bytes.equals(whole.bytes)).toBe(true);
    expect(again.headers.get('etag')).toBe(whole.headers.get('etag'));
    expect((await stat(path.join(keptFolder(), name))).size).toBe(whole.bytes.length);
  });

  it('go with their segmentation when it is deleted', async () => {
    const api = apiClient(mock.url);
    const other = await api.completedSegmentation();
    for (const name of EXPORTS) expect((await get(name, {}, other.segmentationId)).status).toBe(200);
    expect((await keptFiles(other.segmentationId)).size).toBe(EXPORTS.length);
    expect((await api.call('DELETE', `/api/v1/upload/${other.imageId}`)).status).toBeLessThan(300);
    await expect(stat(keptFolder(other.segmentationId))).rejects.toThrow(/ENOENT/);
    expect((await get('measurements.csv', {}, other.segmentationId)).status).toBe(404);
  });
});
