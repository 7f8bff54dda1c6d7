import { describe, expect, it } from 'vitest';
import type { Exchange } from './exchange.js';
import { testExchange as exchange } from './exchange-fixture.js';
import { Oracle } from './oracle.js';

const KEY = 'sk_main';
const MODEL = '44444444-4444-4444-8444-444444444444';
const SHARE = 'abababab-abab-4bab-8bab-abababababab';
const LINK = 'http://pages.target/share/tok_abcdefghijklmnop';
/** The preview as a client asks it: on the API's origin, which need not be the link's. */
const PREVIEW = 'http://target/share/tok_abcdefghijklmnop/image.png';

const id = (n: number) =>
  `${String(n).repeat(8)}-${String(n).repeat(4)}-4${String(n).repeat(3)}-8${String(n).repeat(3)}-${String(n).repeat(12)}`;

const subjects = (oracle: Oracle, x: Exchange) =>
  oracle.observe(x).map((f) => `${f.subject}: ${f.predicted} / ${f.received}`);

/** Uploads an image ready at once, named `name`. */
function upload(oracle: Oracle, image: string, name: string): void {
  const body = { image: { id: image, name, size: 10, upload_status: 'ready', shape: [4, 4] }, upload: null };
  const sent = { file: { name, size: 10 } };
  expect(oracle.observe(exchange('uploadImage', 200, body, { sent }))).toEqual([]);
}

/** A prediction of `image` acknowledged, and when `segmentation` is given, polled to COMPLETED. */
function run(oracle: Oracle, image: string, prediction: string, segmentation?: string): void {
  const ack = { prediction_id: prediction, status: 'submitted', reason: '' };
  const sent = { image_id: image, model_id: MODEL };
  expect(oracle.observe(exchange('createPrediction', 200, ack, { sent }))).toEqual([]);
  if (!segmentation) return;
  const done = { prediction_id: prediction, status: 'COMPLETED', image_id: image, model_id: MODEL };
  const read = { ...done, segmentation_id: segmentation, cell_count: 3 };
  expect(
    oracle.observe(exchange('getPrediction', 200, read, { params: { prediction_id: prediction } })),
  ).toEqual([]);
}

function shareOf(oracle: Oracle, segmentation: string): void {
  const share = {
    id: SHARE,
    segmentation_id: segmentation,
    access: 'anyone_with_link',
    role: 'viewer',
    url: LINK,
    view_count: 0,
    last_viewed_at: null,
    created_at: 't',
    revoked_at: null,
  };
  const sent = { segmentation_id: segmentation };
  expect(oracle.observe(exchange('createShare', 200, share, { sent }))).toEqual([]);
}

const preview = (oracle: Oracle, status: number, key: string | null = null) =>
  subjects(oracle, exchange('viewShareImage', status, undefined, { url: PREVIEW, key }));

const [GONE, KEPT, EARLIER, LATER, RUNNING, OTHER_RUN, EARLIER_SEG, LATER_SEG, KEPT_SEG] = [
  1, 2, 3, 5, 6, 7, 8, 9, 0,
].map(id);

function twoImagesOfOneName(): Oracle {
  const oracle = new Oracle();
  oracle.knowKeys({ main: KEY });
  expect(oracle.observe(exchange('listModels', 200, [{ id: MODEL, name: 'nuclei', kind: 'base' }]))).toEqual(
    [],
  );
  upload(oracle, GONE, 'plate.tif');
  upload(oracle, KEPT, 'plate.tif');
  run(oracle, GONE, EARLIER, EARLIER_SEG);
  run(oracle, GONE, LATER, LATER_SEG);
  run(oracle, KEPT, OTHER_RUN, KEPT_SEG);
  return oracle;
}

describe('the oracle on what a delete takes and what it leaves', () => {
  it("predicts a share's preview image served while live, and closed once its image is deleted", () => {
    const oracle = twoImagesOfOneName();
    shareOf(oracle, EARLIER_SEG);
    expect(preview(oracle, 200)).toEqual([]);
    expect(preview(oracle, 404)).toEqual([`GET the preview image of share ${SHARE}: 200 / 404`]);
    expect(
      oracle.observe(exchange('deleteUpload', 200, { success: true }, { params: { image_id: GONE } })),
    ).toEqual([]);
    expect(preview(oracle, 200)).toEqual([`GET the preview image of share ${SHARE}: not 2xx / 200`]);
    expect(preview(oracle, 404)).toEqual([]);
  });

  it("predicts a share's preview image closed once the share is revoked, and judges no other token's", () => {
    const oracle = twoImagesOfOneName();
    shareOf(oracle, KEPT_SEG);
    expect(preview(oracle, 200, 'sk_test_unknown')).toEqual([]);
    expect(oracle.observe(exchange('revokeShare', 204, undefined, { params: { share_id: SHARE } }))).toEqual(
      [],
    );
    expect(preview(oracle, 200)).toEqual([`GET the preview image of share ${SHARE}: not 2xx / 200`]);
    const another = 'http://target/share/tok_another_token_entirely/image.png';
    expect(subjects(oracle, exchange('viewShareImage', 200, undefined, { url: another, key: null }))).toEqual(
      [],
    );
  });

  it('predicts every run of a deleted image gone, an earlier one and one in flight, and the other image of its name left whole', () => {
    const oracle = twoImagesOfOneName();
    run(oracle, GONE, RUNNING);
    expect(
      oracle.observe(exchange('deleteImage', 200, { success: true }, { params: { image_id: GONE } })),
    ).toEqual([]);
    const poll = (prediction: string, status: number, body: object) =>
      subjects(oracle, exchange('getPrediction', status, body, { params: { prediction_id: prediction } }));
    const completed = { status: 'COMPLETED', image_id: GONE, model_id: MODEL, cell_count: 3 };
    expect(
      poll(EARLIER, 200, { ...completed, prediction_id: EARLIER, segmentation_id: EARLIER_SEG }),
    ).toEqual(['getPrediction status: 404 / 200']);
    expect(poll(RUNNING, 200, { ...completed, prediction_id: RUNNING, segmentation_id: id(4) })).toEqual([
      'getPrediction status: 404 / 200',
    ]);
    expect(poll(LATER, 404, { detail: 'Prediction not found' })).toEqual([]);
    const csv = (segmentation: string, status: number) =>
      subjects(
        oracle,
        exchange(
          'exportMeasurementsCsv',
          status,
          { detail: 'Segmentation not found' },
          {
            url: `http://target/api/v1/export/${segmentation}/measurements.csv`,
            params: { segmentation_id: segmentation },
          },
        ),
      );
    expect(csv(EARLIER_SEG, 404)).toEqual([]);
    expect(csv(KEPT_SEG, 404)).toEqual([
      'exportMeasurementsCsv status for no options: 200 (the export) / 404',
    ]);
    expect(
      subjects(oracle, exchange('getImage', 404, { detail: 'x' }, { params: { image_id: KEPT } })),
    ).toEqual(['getImage status: 200 / 404']);
  });

  it('predicts a complete of an upload whose image was deleted answered 404', () => {
    const oracle = new Oracle();
    oracle.knowKeys({ main: KEY });
    const image = { id: GONE, name: 'big.tif', size: 1000, upload_status: 'uploading' };
    const plan = { part_size: 1000, urls: [{ part_number: 1, url: 'http://s3.target/part-1' }] };
    const sent = { name: 'big.tif', size: 1000 };
    expect(oracle.observe(exchange('uploadImage', 200, { image, upload: plan }, { sent }))).toEqual([]);
    expect(
      oracle.observe(exchange('deleteUpload', 200, { success: true }, { params: { image_id: GONE } })),
    ).toEqual([]);
    expect(
      subjects(
        oracle,
        exchange('completeUpload', 202, { status: 'processing' }, { params: { image_id: GONE } }),
      ),
    ).toEqual(['completeUpload status: 404 / 202']);
  });
});
