import { describe, expect, it } from 'vitest';
import type { Exchange, Finding } from './exchange.js';
import { testExchange } from './exchange-fixture.js';
import { observeUploadMode } from './upload-modes.js';
import { Oracle } from './oracle.js';

const judge = (status: number, over: Partial<Exchange>): string[] => {
  const findings: Finding[] = [];
  observeUploadMode(
    testExchange('uploadImage', status, { detail: 'no' }, { method: 'POST', ...over }),
    findings,
  );
  return findings.map(
    (f) => `${f.clause ? `${f.clause}: ` : ''}${f.subject}: ${f.predicted} / ${f.received}`,
  );
};

const json = (type: string, sent: unknown = { name: 'a.tif', size: 1000 }) => ({
  sent,
  sentHeaders: { 'content-type': type },
});

describe('what POST /upload never refuses of a well-formed request', () => {
  it('takes application/json with a charset or in another case as Mode B', () => {
    expect(judge(415, json('application/json; charset=utf-8'))).toEqual([
      'uploadImage status (mode B, Content-Type: application/json; charset=utf-8): not 413, 415 or 422 / 415',
    ]);
    expect(judge(422, json('Application/JSON'))).toHaveLength(1);
    // a body outside the document's bounds, or another media type, may be refused
    expect(judge(422, json('application/json', { name: 'a.tif', size: 0 }))).toEqual([]);
    expect(judge(422, json('application/json', { name: 'a.tif', size: 1, padding: 'x' }))).toEqual([]);
    expect(judge(415, json('text/plain'))).toEqual([]);
  });

  it('takes a file part of at most 4 GB, whatever its boundary, and leaves a larger one to the target', () => {
    const file = (size: number) => ({ sent: { file: { name: 'a.tif', size } } });
    expect(judge(422, file(1000))).toEqual(['uploadImage status (mode A): not 413, 415 or 422 / 422']);
    expect(judge(413, file(100_000_000))).toHaveLength(1);
    expect(judge(413, file(4 * 1024 ** 3 + 1))).toEqual([]);
    expect(judge(200, file(1000))).toEqual([]);
    expect(judge(402, file(1000))).toEqual([]);
  });

  it("files a refusal past 4,000,000,000 bytes and up to 4 GiB under UP-24, the document's reading of 4 GB", () => {
    const FOUR_GIB = 4 * 1024 ** 3;
    expect(judge(422, json('application/json', { name: 'a.tif', size: FOUR_GIB }))).toEqual([
      `UP-24: uploadImage status (mode B, Content-Type: application/json, size ${FOUR_GIB}): not 413, 415 or 422 / 422`,
    ]);
    expect(judge(422, json('application/json', { name: 'a.tif', size: 4_000_000_000 }))).toEqual([
      'uploadImage status (mode B, Content-Type: application/json): not 413, 415 or 422 / 422',
    ]);
    expect(judge(422, json('application/json', { name: 'a.tif', size: FOUR_GIB + 1 }))).toEqual([]);
  });

  it('takes an image record of a name, a size, the TIFF format and resumable, and leaves other fields to the target', () => {
    const record = (status: number, sent: Record<string, unknown>) =>
      judge(status, { operationId: 'createImage', ...json('application/json', sent) });
    const FOUR_GIB = 4 * 1024 ** 3;
    expect(record(422, { name: 'a.tif', size: 1000, image_type: 'TIFF', resumable: true })).toEqual([
      'createImage status: not 413, 415 or 422 / 422',
    ]);
    expect(record(422, { name: 'a.tif', size: FOUR_GIB, resumable: true })).toEqual([
      `UP-24: createImage status (size ${FOUR_GIB}): not 413, 415 or 422 / 422`,
    ]);
    // another format, a field the interface does not name here, or no size: the target's to refuse
    expect(record(422, { name: 'a.tif', size: 1000, image_type: 'PNG' })).toEqual([]);
    expect(record(422, { name: 'a.tif', size: 1000, upload_status: 'ready' })).toEqual([]);
    expect(record(422, { name: 'a.tif', resumable: true })).toEqual([]);
    expect(record(200, { name: 'a.tif', size: 1000 })).toEqual([]);
  });
});

describe('the upload an image record opens', () => {
  it('predicts a plan only for resumable: true, upload null for resumable false or left out', () => {
    const oracle = new Oracle();
    oracle.knowKeys({ main: 'sk_main' });
    const plan = { upload_id: 'u1', part_size: 8_388_608, urls: [{ part_number: 1, url: 'http://s3/p1' }] };
    let n = 0;
    const created = (resumable: boolean | undefined, upload: unknown) => {
      const id = `00000000-0000-4000-8000-00000000000${n++}`;
      const image = { id, name: 'a.tif', size: 1000, upload_status: 'uploading' };
      const sent = { name: 'a.tif', size: 1000, image_type: 'TIFF', resumable };
      const x = testExchange('createImage', 200, { ...image, upload }, { method: 'POST', sent });
      return oracle.observe(x).map((f) => `${f.subject}: ${f.predicted} / ${f.received}`);
    };
    expect(created(true, plan)).toEqual([]);
    expect(created(false, null)).toEqual([]);
    expect(created(undefined, null)).toEqual([]);
    expect(created(false, { ...plan, upload_id: 'u2', urls: [] })).toEqual([
      'createImage: upload (resumable false): null / {"upload_id":"u2","part_size":8388608,"urls":[]}',
    ]);
  });
});
