/**
 * A part PUT's 200 promises what the operating system holds, not the disk: parts are flushed once,
 * when the upload completes. After a machine-level loss (staged here by zeroing a part's bytes while
 * the mock is stopped, which is what a power loss does to bytes not yet written back) the client's
 * complete is refused naming the part, the image stays `uploading` with no row pointing at a file
 * that is not there, and the same part URL sent again makes the upload complete.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { apiClient } from '../../../test-support/api-client.js';
import { dataLayout, storeLayout } from '../../stores/data-layout.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const TIFF = readFileSync(path.join(import.meta.dirname, '../../../fixtures/samples/cells.tif'));

describe('a resumable upload across a restart that lost an unflushed part', () => {
  it('complete names the lost part and changes nothing; the part sent again completes the upload', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'resumable-restart-'));
    dirs.push(dir);
    let mock = await startInstantMock({ dataDir: dir });
    const opened = (
      await apiClient(mock.url).call('POST', '/api/v1/upload', { name: 'cells.tif', size: TIFF.length })
    ).body as { image: { id: string }; upload: { urls: Array<{ part_number: number; url: string }> } };
    expect(opened.upload.urls).toHaveLength(1);
    const partPath = new URL(opened.upload.urls[0].url);
    const put = () =>
      fetch(new URL(partPath.pathname + partPath.search, mock.url), { method: 'PUT', body: TIFF });
    expect((await put()).status).toBe(200);
    await mock.close();

    const store = storeLayout(dataLayout(dir).store);
    const [uploadId] = readdirSync(store.multipart);
    const data = await fsp.open(store.uploadData(uploadId), 'r+');
    await data.write(Buffer.alloc(64), 0, 64, 0);
    await data.close();

    mock = await startInstantMock({ dataDir: dir });
    try {
      const api = apiClient(mock.url);
      const refused = await api.call('POST', `/api/v1/upload/${opened.image.id}/complete`);
      expect(refused.status).toBe(422);
      expect(JSON.stringify(refused.body)).toMatch(/Part 1 was lost.*PUT part 1 again/);
      expect(JSON.stringify(refused.body)).not.toContain(dir);
      expect((await api.call('GET', `/api/v1/upload/${opened.image.id}`)).body.upload_status).toBe(
        'uploading',
      );

      expect((await put()).status).toBe(200);
      expect((await api.call('POST', `/api/v1/upload/${opened.image.id}/complete`)).status).toBe(202);
      await mock.services.idle();
      expect((await api.call('GET', `/api/v1/upload/${opened.image.id}`)).body.upload_status).toBe('ready');
    } finally {
      await mock.close();
    }
  });
});
