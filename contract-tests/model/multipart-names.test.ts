import { describe, expect, it } from 'vitest';
import { testExchange as exchange } from './exchange-fixture.js';
import { Oracle } from './oracle.js';

const IMAGE = '11111111-1111-4111-8111-111111111111';

/** What the oracle finds of a multipart upload of a file part named `sent`, answered as `answered`. */
function uploaded(sent: string, answered: string): string[] {
  const oracle = new Oracle();
  oracle.knowKeys({ main: 'sk_main' });
  const image = { id: IMAGE, name: answered, size: 10, upload_status: 'ready', shape: [4, 4] };
  const x = exchange(
    'uploadImage',
    200,
    { image, success: true, upload: null },
    { method: 'POST', sent: { file: { name: sent, size: 10 } } },
  );
  const read = exchange('getUpload', 200, image, { params: { image_id: IMAGE } });
  return [...oracle.observe(x), ...oracle.observe(read)].map((f) => `${f.subject}: ${f.received}`);
}

describe("a multipart upload's file name", () => {
  it('names the image as sent', () => {
    expect(uploaded('cells.tif', 'cells.tif')).toEqual([]);
    expect(uploaded('cells.tif', 'other.tif')).toEqual([
      'uploadImage: image.name: "other.tif"',
      'getUpload: name: "other.tif"',
    ]);
  });

  it('may lose the directory path it holds (RFC 7578 4.2), and no other part of it', () => {
    expect(uploaded('plates/a\\cells.tif', 'cells.tif')).toEqual([]);
    expect(uploaded('plates/a\\cells.tif', 'plates/a\\cells.tif')).toEqual([]);
    expect(uploaded('plates/cells.tif', 'plates_cells.tif')).toEqual([
      'uploadImage: image.name: "plates_cells.tif"',
      'getUpload: name: "plates_cells.tif"',
    ]);
  });

  it('names nothing when the part has no filename: the service picks one', () => {
    expect(uploaded('', 'upload.tif')).toEqual([]);
  });
});
