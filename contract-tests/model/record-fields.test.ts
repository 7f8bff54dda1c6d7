import { describe, expect, it } from 'vitest';
import { organizationMade, testExchange } from './exchange-fixture.js';
import { Oracle } from './oracle.js';
import { jsonDepth, jsonKeys } from './record-fields.js';

const ORG = '66666666-6666-4666-8666-666666666666';
const NEW_ID = '88888888-8888-4888-8888-888888888888';
const FOLDER = '99999999-9999-4999-8999-999999999999';

/** An oracle that saw an organization made here with room for images (key sk_made), or knows only a target's key. */
function oracleOf(made: boolean): Oracle {
  const oracle = new Oracle();
  oracle.knowKeys({ main: 'sk_main' });
  if (made)
    oracle.observe(
      organizationMade(ORG, 'sk_made', { plan: { storage_cap_images: 3, monthly_analysis_cap: 3 } }),
    );
  return oracle;
}

const record = (
  status: number,
  sent: Record<string, unknown>,
  body: unknown = { detail: 'no' },
  key = 'sk_made',
) =>
  testExchange('createImage', status, body, {
    method: 'POST',
    key,
    sent: { name: 'a.tif', size: 1000, ...sent },
    sentHeaders: { 'content-type': 'application/json' },
  });

const judge = (oracle: Oracle, ...args: Parameters<typeof record>) =>
  oracle.observe(record(...args)).map((f) => `${f.subject}: ${f.predicted} / ${f.received}`);

const created = (sent: Record<string, unknown>, over: Record<string, unknown>) => ({
  id: NEW_ID,
  name: 'a.tif',
  size: 1000,
  upload_status: 'uploading',
  upload: null,
  metadata: {},
  folder_id: null,
  ...sent,
  ...over,
});

/** metadata nested `levels` deep inside the body (the body itself is the first level). */
const nested = (levels: number): unknown => {
  let value: unknown = {};
  for (let i = 2; i < levels; i++) value = { a: value };
  return value;
};

describe('the fields of an image record the document refuses', () => {
  it('refuses a format other than TIFF, metadata that is no object, a folder id that is no UUID: 422', () => {
    for (const sent of [
      { image_type: 'PNG' },
      { image_type: 'tiff' },
      { metadata: 'plate 1' },
      { metadata: [1, 2] },
      { metadata: null },
      { folder_id: 'not-a-uuid' },
      { folder_id: 7 },
    ]) {
      expect(judge(oracleOf(true), 200, sent, created(sent, {})), JSON.stringify(sent)).toContain(
        'createImage status: 422 or 402 / 200',
      );
      expect(judge(oracleOf(true), 422, sent), JSON.stringify(sent)).toEqual([]);
    }
  });

  it("answers 404 for a folder id of an organization made here (it has none), and leaves a target's own organization alone", () => {
    const findings = oracleOf(true).observe(
      record(200, { folder_id: FOLDER }, created({ folder_id: FOLDER }, {})),
    );
    // an assumed rule: filed under its own clause, which only the check that names it reports
    expect(findings.map((f) => [`${f.subject}: ${f.predicted} / ${f.received}`, f.clause])).toEqual([
      ['createImage status: 404 or 422 or 402 / 200', 'UP-20'],
    ]);
    expect(judge(oracleOf(true), 404, { folder_id: FOLDER })).toEqual([]);
    expect(
      judge(oracleOf(false), 200, { folder_id: FOLDER }, created({}, { folder_id: FOLDER }), 'sk_main'),
    ).toEqual([]);
  });

  it('bounds the body, metadata included: 413 past 1 MiB, 422 past 64 levels or 10,000 keys, or taken by a target that keeps no such limit', () => {
    expect(jsonDepth(nested(64))).toBe(63);
    expect(jsonDepth({ metadata: nested(64) })).toBe(64);
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    expect(jsonKeys({ name: 'a', size: 1, metadata: keys(9997) })).toBe(10_000);
    const deep = { metadata: nested(65) };
    expect(judge(oracleOf(true), 413, deep)).toEqual(['createImage status: 422 or 402 or 200 / 413']);
    expect(judge(oracleOf(true), 422, deep)).toEqual([]);
    const many = { metadata: keys(9998) };
    expect(judge(oracleOf(true), 415, many)).toEqual(['createImage status: 422 or 402 or 200 / 415']);
    const big = { metadata: { text: 'x'.repeat(1_048_576) } };
    expect(judge(oracleOf(true), 422, big)).toEqual(['createImage status: 413 or 200 / 422']);
    expect(judge(oracleOf(true), 413, big)).toEqual([]);
    // the limits are the document's choice (x-assumed): a FastAPI service keeps none by default
    for (const sent of [deep, many, big])
      expect(judge(oracleOf(true), 200, sent, created(sent, {}))).toEqual([]);
  });

  it('takes metadata at the limits and a null folder, and refuses neither (not 413, 415 or 422)', () => {
    const at = { metadata: { deep: nested(63), n: 1 }, folder_id: null, image_type: 'TIFF' };
    expect(jsonDepth({ name: 'a', metadata: at.metadata })).toBe(64);
    expect(judge(oracleOf(true), 422, at)).toEqual(['createImage status: not 413, 415 or 422 / 422']);
    expect(judge(oracleOf(true), 200, at, created(at, {}))).toEqual([]);
  });

  it('holds what was sent: its metadata (keys in any order) and no folder', () => {
    const sent = { metadata: { plate: 1, well: 'B3', nested: { a: [1, { b: 2 }] } } };
    const reordered = { nested: { a: [1, { b: 2 }] }, well: 'B3', plate: 1 };
    expect(judge(oracleOf(true), 200, sent, created(sent, { metadata: reordered }))).toEqual([]);
    expect(judge(oracleOf(true), 200, sent, created(sent, { metadata: {} }))).toEqual([
      'createImage: metadata: {"nested":{"a":[1,{"b":2}]},"plate":1,"well":"B3"} / {}',
    ]);
    expect(judge(oracleOf(true), 200, {}, created({}, { folder_id: FOLDER }))).toEqual([
      `createImage: folder_id: null / "${FOLDER}"`,
    ]);
  });

  it('refuses a multipart upload without a file part: 422', () => {
    const form = (status: number) =>
      oracleOf(true)
        .observe(
          testExchange(
            'uploadImage',
            status,
            { detail: [] },
            { method: 'POST', key: 'sk_made', sent: { parts: ['image'] } },
          ),
        )
        .map((f) => `${f.subject}: ${f.predicted} / ${f.received}`);
    expect(form(422)).toEqual([]);
    expect(form(400)).toEqual(['uploadImage status: 422 or 402 / 400']);
  });
});
