import { describe, expect, it } from 'vitest';
import { testExchange as exchange } from './exchange-fixture.js';
import { Oracle } from './oracle.js';

const IMAGE = '11111111-1111-4111-8111-111111111111';

/** An oracle that saw a resumable upload of `size` bytes opened (parts of 5) and its parts PUT with `sizes` bytes. */
function putWith(size: number, sizes: number[], only?: number[]): Oracle {
  const oracle = new Oracle();
  oracle.knowKeys({ main: 'sk_main' });
  const urls = sizes.map((_, i) => ({ part_number: i + 1, url: `http://store/p${i + 1}` }));
  const image = { id: IMAGE, name: 'r.tif', size, upload_status: 'uploading' };
  const opened = exchange(
    'uploadImage',
    200,
    { image, success: true, upload: { part_size: 5, upload_id: 'u', urls } },
    { method: 'POST', sent: { name: 'r.tif', size } },
  );
  expect(oracle.observe(opened)).toEqual([]);
  sizes.forEach(
    (bytes, i) =>
      (only ?? [i + 1]).includes(i + 1) &&
      oracle.observe(
        exchange('presigned part PUT', 200, undefined, {
          method: 'PUT',
          url: `http://store/p${i + 1}`,
          key: null,
          sentBytes: bytes,
          headers: { etag: `"e${i + 1}"` },
        }),
      ),
  );
  return oracle;
}

const complete = (oracle: Oracle, status: number, parts?: number[]) =>
  oracle
    .observe(
      exchange('completeUpload', status, status === 202 ? { status: 'processing' } : { detail: 'no' }, {
        method: 'POST',
        params: { image_id: IMAGE },
        sent: parts && { parts: parts.map((n) => ({ part_number: n, etag: `"e${n}"` })) },
      }),
    )
    .map((f) => `${f.subject}: ${f.predicted} / ${f.received}`);

describe('a complete of parts that do not add up to the size opened', () => {
  it('is refused when the whole plan is listed but a part was PUT a byte long or short', () => {
    expect(complete(putWith(8, [5, 4]), 202, [1, 2])).toEqual(['completeUpload status: 422 / 202']);
    expect(complete(putWith(8, [5, 2]), 422, [1, 2])).toEqual([]);
    expect(complete(putWith(4, [5]), 202, [1])).toEqual(['completeUpload status: 422 / 202']);
  });

  it('is refused when the service finds such parts itself (no body)', () => {
    expect(complete(putWith(8, [6, 3]), 202)).toEqual(['completeUpload status: 422 / 202']);
    expect(complete(putWith(8, [5, 3]), 202)).toEqual([]);
  });

  it('is refused when a part of the plan was never PUT (no body, or an empty list): storage holds less than the size', () => {
    const refused = ['completeUpload status: 422 / 202'];
    expect(complete(putWith(8, [5, 3], [1]), 202)).toEqual(refused);
    expect(complete(putWith(8, [5, 3], [2]), 202)).toEqual(refused);
    expect(complete(putWith(8, [5, 3], []), 202)).toEqual(refused);
    expect(complete(putWith(8, [5, 3], [1]), 422)).toEqual([]);
    // refused, the upload stays open: once the rest is PUT the service finds the whole file
    const oracle = putWith(8, [5, 3], [1]);
    expect(complete(oracle, 422)).toEqual([]);
    oracle.observe(
      exchange('presigned part PUT', 200, undefined, {
        method: 'PUT',
        url: 'http://store/p2',
        key: null,
        sentBytes: 3,
      }),
    );
    expect(complete(oracle, 422)).toEqual(['completeUpload status: 202 / 422']);
  });

  it("files a discovery's refusal under the assumed UP-26, a listed subset's under no one clause", () => {
    // the interface shows no answer for parts found short of the size: the 422 is the document's
    const clauses = (oracle: Oracle, parts?: number[]) =>
      oracle
        .observe(
          exchange(
            'completeUpload',
            202,
            { status: 'processing' },
            {
              method: 'POST',
              params: { image_id: IMAGE },
              sent: parts && { parts: parts.map((n) => ({ part_number: n, etag: `"e${n}"` })) },
            },
          ),
        )
        .map((f) => `${f.subject}: ${f.clause}`);
    expect(clauses(putWith(8, [5, 3], [1]))).toEqual(['completeUpload status: UP-26']);
    expect(clauses(putWith(8, [6, 3]))).toEqual(['completeUpload status: UP-26']);
    expect(clauses(putWith(8, [5, 4]), [1, 2])).toEqual(['completeUpload status: undefined']);
  });

  it('is taken when the parts add up', () => {
    expect(complete(putWith(8, [5, 3]), 202, [2, 1])).toEqual([]);
    expect(complete(putWith(8, [5, 3]), 422, [1, 2])).toEqual(['completeUpload status: 202 / 422']);
  });
});

describe('a parts list longer than the document allows', () => {
  it('is left to the schema: a 422 with the validation array, or whatever comes first, is not judged', () => {
    const oracle = putWith(8, [5, 3]);
    const parts = Array.from({ length: 513 }, (_, i) => ({ part_number: i + 1, etag: '"e1"' }));
    const asked = (status: number, body: unknown, image = IMAGE) =>
      oracle.observe(
        exchange('completeUpload', status, body, {
          method: 'POST',
          params: { image_id: image },
          sent: { parts },
        }),
      );
    expect(asked(422, { detail: [{ loc: ['body', 'parts'], msg: 'too long', type: 'too_long' }] })).toEqual(
      [],
    );
    expect(asked(422, { detail: 'no' }, '99999999-9999-4999-8999-999999999999')).toEqual([]);
    // the upload stays open: the whole plan is still taken
    expect(complete(oracle, 202, [1, 2])).toEqual([]);
  });
});
