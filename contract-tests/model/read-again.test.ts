import { describe, expect, it } from 'vitest';
import type { Exchange } from './exchange.js';
import { CSV_COLUMNS } from './export-options.js';
import { Oracle } from './oracle.js';
import { testExchange } from './exchange-fixture.js';

/**
 * The oracle's rules for values a client reads again: a failed image's reason, a share's last
 * view after a later open, each open counted on its own share, and the detail of the unknown
 * columns error (every name a word of its own).
 */
const KEY = 'sk_main';
const IMAGE = '11111111-1111-4111-8111-111111111111';
const PREDICTION = '22222222-2222-4222-8222-222222222222';
const MODEL = '44444444-4444-4444-8444-444444444444';
const SEGMENTATIONS = ['33333333-3333-4333-8333-333333333333', '33333333-3333-4333-8333-333333333334'];
const SHARES = ['55555555-5555-4555-8555-555555555555', '55555555-5555-4555-8555-555555555556'];
const REASON = 'not a TIFF: the file starts with bytes 89 50 4E 47 (PNG)';

/** Sent and answered at time 0. */
const exchange = (operationId: string, status: number, body: unknown, over: Partial<Exchange> = {}) =>
  testExchange(operationId, status, body, { sentAt: 0, receivedAt: 0, ...over });

const subjects = (oracle: Oracle, x: Exchange) =>
  oracle.observe(x).map((f) => `${f.subject}: ${f.predicted} / ${f.received}`);

function oracleWithFailedUpload(): Oracle {
  const oracle = new Oracle();
  oracle.knowKeys({ main: KEY });
  const image = { id: IMAGE, name: 'x.tif', size: 10, upload_status: 'failed', upload_error: REASON };
  const upload = exchange(
    'uploadImage',
    200,
    { image, success: false, upload: null },
    { sent: { file: { name: 'x.tif', size: 10 } } },
  );
  expect(subjects(oracle, upload)).toEqual([]);
  return oracle;
}

/** An oracle that has seen two completed segmentations of 3 cells, each shared, never viewed. */
function oracleWithTwoShares(): Oracle {
  const oracle = new Oracle();
  oracle.knowKeys({ main: KEY });
  const image = { id: IMAGE, name: 'c.tif', size: 10, upload_status: 'ready', shape: [4, 4] };
  const steps = [
    exchange('uploadImage', 200, { image, upload: null }, { sent: { file: { name: 'c.tif', size: 10 } } }),
  ];
  SEGMENTATIONS.forEach((segmentation, i) => {
    const prediction = PREDICTION.slice(0, -1) + String(i);
    steps.push(
      exchange(
        'createPrediction',
        200,
        { prediction_id: prediction, status: 'submitted' },
        { sent: { image_id: IMAGE, model_id: MODEL } },
      ),
      exchange(
        'getPrediction',
        200,
        {
          prediction_id: prediction,
          status: 'COMPLETED',
          image_id: IMAGE,
          model_id: MODEL,
          segmentation_id: segmentation,
          cell_count: 3,
        },
        { params: { prediction_id: prediction } },
      ),
      exchange('createShare', 200, share(i, 0, null), { sent: { segmentation_id: segmentation } }),
    );
  });
  for (const step of steps) expect(subjects(oracle, step)).toEqual([]);
  return oracle;
}

const pageUrl = (i: number) => `http://target/share/token-${i}`;
const share = (i: number, views: number, last: string | null) => ({
  id: SHARES[i],
  segmentation_id: SEGMENTATIONS[i],
  access: 'anyone_with_link',
  role: 'viewer',
  url: pageUrl(i),
  view_count: views,
  last_viewed_at: last,
  revoked_at: null,
});
const open = (i: number, sentAt: number, receivedAt = sentAt + 20) =>
  exchange('page', 200, undefined, {
    url: pageUrl(i),
    key: null,
    sentAt,
    receivedAt,
    bytes: Buffer.from('<p>3 cells</p>'),
  });
const read = (i: number, views: number, last: string) =>
  exchange('getShare', 200, share(i, views, last), { params: { share_id: SHARES[i] } });

describe('the oracle, on values read again', () => {
  it("holds each read of a failed image to the reason the upload's answer gave", () => {
    const getUpload = (reason: string) =>
      exchange(
        'getUpload',
        200,
        { id: IMAGE, name: 'x.tif', size: 10, upload_status: 'failed', upload_error: reason },
        { params: { image_id: IMAGE } },
      );
    expect(subjects(oracleWithFailedUpload(), getUpload(REASON))).toEqual([]);
    expect(subjects(oracleWithFailedUpload(), getUpload(`${REASON}x`))).toEqual([
      `getUpload: upload_error, as first answered: ${JSON.stringify(REASON)} / ${JSON.stringify(`${REASON}x`)}`,
    ]);
  });

  it('counts an open on its own share only, and wants a later last_viewed_at after an open over a second later', () => {
    const oracle = oracleWithTwoShares();
    const t0 = Date.parse('2026-01-01T00:00:00.000Z');
    const at = (ms: number) => new Date(t0 + ms).toISOString();
    expect(subjects(oracle, open(0, t0))).toEqual([]);
    expect(subjects(oracle, read(0, 1, at(10)))).toEqual([]);
    expect(subjects(oracle, open(1, t0 + 100))).toEqual([]);
    expect(subjects(oracle, read(0, 2, at(10)))).toEqual(['getShare: view_count: 1 / 2']);

    /** Open, read, and open again `gap` ms after the first open was answered. */
    const openedAgain = (gap: number) => {
      const again = oracleWithTwoShares();
      again.observe(open(0, t0));
      again.observe(read(0, 1, at(10)));
      again.observe(open(0, t0 + 20 + gap));
      return again;
    };
    // 500 ms later the two opens may share a second: not judged
    expect(subjects(openedAgain(500), read(0, 2, at(10)))).toEqual([]);
    // 1.2 s later the new value must be later than the one read after the first open
    expect(subjects(openedAgain(1200), read(0, 2, at(1230)))).toEqual([]);
    expect(subjects(openedAgain(1200), read(0, 2, at(10)))).toEqual([
      `getShare: last_viewed_at after 1 more open(s), 1200 ms after view 1 was answered: "later than ${at(10)}" / "${at(10)}"`,
    ]);
  });

  it('wants the unknown columns error to name each unknown column and each valid one as words', () => {
    const oracle = oracleWithTwoShares();
    const params = { segmentation_id: SEGMENTATIONS[0] };
    const url = 'http://target/api/v1/export/s/measurements.csv?columns=area_px&columns=areaa';
    const refused = (detail: unknown) =>
      subjects(oracle, exchange('exportMeasurementsCsv', 422, { detail }, { params, url }));
    const right = `Unknown column(s): 'areaa'. Valid columns: ${CSV_COLUMNS.join(', ')}`;
    expect(refused(right)).toEqual([]);
    expect(refused(`${right}x`)).toEqual([
      `exportMeasurementsCsv 422 detail for columns areaa: names bbox_h / ${JSON.stringify(`${right}x`)}`,
    ]);
    expect(refused(`Valid columns: ${CSV_COLUMNS.join(', ')}`)[0]).toMatch(/names areaa \//);
    // the same words as validation items: named, but not the string the document gives
    const items = [{ loc: ['query', 'columns', '1'], msg: right, type: 'literal_error', input: 'areaa' }];
    expect(refused(items)).toEqual([
      `exportMeasurementsCsv 422 detail for columns areaa: type: a string / ${JSON.stringify(items)}`,
    ]);
  });
});
