import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataLayout, storeLayout } from './data-layout.js';

const root = path.resolve('/data');

describe('the data folder layout', () => {
  const layout = dataLayout(root);

  it('keeps every folder it makes under the root, each once', () => {
    expect(layout.folders).toEqual([
      root,
      path.join(root, 'derived'),
      path.join(root, 'segmentations'),
      path.join(root, 'store'),
      path.join(root, 'incoming'),
      path.join(root, 'cache'),
    ]);
    expect(new Set(layout.folders).size).toBe(layout.folders.length);
    expect(layout.signingSecret).toBe(path.join(root, 'signing-secret'));
  });

  it("puts an image's derived files in its own folder", () => {
    expect(layout.derivedFilesOf('img')).toEqual({
      folder: path.join(root, 'derived', 'img'),
      preview: path.join(root, 'derived', 'img', 'preview.png'),
      thumbnail: path.join(root, 'derived', 'img', 'thumbnail.png'),
      plane: path.join(root, 'derived', 'img', 'plane.bin'),
    });
  });

  it('stages a segmentation beside its final folder, under a name the sweep sees as no segmentation', () => {
    const final = layout.segmentationOf('seg');
    const staging = layout.segmentationStaging('seg');
    expect(final.folder).toBe(path.join(root, 'segmentations', 'seg'));
    expect(staging.folder).toBe(path.join(root, 'segmentations', '.seg.tmp'));
    expect(path.dirname(staging.folder)).toBe(path.dirname(final.folder));
    expect([final.result, final.preview]).toEqual([
      path.join(final.folder, 'result.json'),
      path.join(final.folder, 'preview.png'),
    ]);
  });

  it("keeps a segmentation's rendered exports inside its folder, so they go with it", () => {
    expect(layout.keptExportsOf('seg')).toBe(path.join(root, 'segmentations', 'seg', 'exports'));
  });
});

describe("the embedded store's layout", () => {
  const store = storeLayout(path.join(root, 'store'));

  it('keeps objects, uploads and staging apart, staging on the same file system', () => {
    expect(store.folders).toEqual([
      path.join(root, 'store', 'objects'),
      path.join(root, 'store', 'multipart'),
      path.join(root, 'store', 'tmp'),
    ]);
  });

  it('maps a key to a file, segment by segment', () => {
    expect(store.objectFile('objects/abc/original.tif')).toBe(
      path.join(root, 'store', 'objects', 'objects', 'abc', 'original.tif'),
    );
  });

  it("names an upload's files, and reads part numbers back from record names only", () => {
    expect(store.uploadRecord('u')).toBe(path.join(root, 'store', 'multipart', 'u', 'upload.json'));
    expect(store.uploadData('u')).toBe(path.join(root, 'store', 'multipart', 'u', 'data'));
    expect(store.partRecord('u', 12)).toBe(path.join(root, 'store', 'multipart', 'u', '12.json'));
    expect(store.partNumberOf('12.json')).toBe(12);
    for (const name of ['upload.json', 'data', '0.json', '012.json', '123456.json', '1.json.tmp', '1.slot'])
      expect(store.partNumberOf(name), name).toBeUndefined();
  });

  it("names a part's slot claim, its own file when sent again, and the upload's lock", () => {
    const upload = path.join(root, 'store', 'multipart', 'u');
    expect(store.slotClaim('u', 3)).toBe(path.join(upload, '3.slot'));
    expect(store.partFile('u', 3, 'ab12')).toBe(path.join(upload, '3.ab12.part'));
    expect(store.uploadLock('u')).toBe(path.join(upload, 'lock'));
    expect(store.claimedPartOf('3.slot')).toBe(3);
    for (const name of ['3.json', 'lock', '0.slot', '3.ab12.part'])
      expect(store.claimedPartOf(name), name).toBeUndefined();
  });
});
