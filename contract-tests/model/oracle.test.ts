import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import type { Exchange } from './exchange.js';
import { CSV_COLUMNS } from './export-options.js';
import { Oracle } from './oracle.js';
import {
  organizationMade,
  SEGMENTED,
  segmentedOracle,
  testExchange as exchange,
} from './exchange-fixture.js';

const KEY = 'sk_main';
const OTHER = 'sk_other';
const { image: IMAGE, prediction: PREDICTION, segmentation: SEGMENTATION, model: MODEL } = SEGMENTED;
const SHARE = '55555555-5555-4555-8555-555555555555';
const ORG = '66666666-6666-4666-8666-666666666666';

/** An oracle that has seen a ready image predicted to completion with 3 cells. */
const withSegmentation = () => segmentedOracle(3);

const subjects = (oracle: Oracle, x: Exchange) =>
  oracle.observe(x).map((f) => `${f.subject}: ${f.predicted} / ${f.received}`);

/**
 * POST /upload opening a resumable upload of `size` bytes (parts of 5, their URLs
 * http://store/<tag><n>) as the oracle sees it answered: the image, still uploading.
 */
function openResumable(oracle: Oracle, name: string, size: number, tag: string, parts: number) {
  const urls = Array.from({ length: parts }, (_, i) => ({
    part_number: i + 1,
    url: `http://store/${tag}${i + 1}`,
  }));
  const image = { id: IMAGE, name, size, upload_status: 'uploading' };
  oracle.observe(
    exchange(
      'uploadImage',
      200,
      { image, success: true, upload: { part_size: 5, upload_id: 'u', urls } },
      { sent: { name, size } },
    ),
  );
  return image;
}

describe('the oracle', () => {
  it('passes the answers a healthy target gives, and flags a deleted image still readable', () => {
    const oracle = withSegmentation();
    expect(
      oracle.observe(exchange('deleteImage', 200, { success: true }, { params: { image_id: IMAGE } })),
    ).toEqual([]);
    expect(
      subjects(oracle, exchange('getUpload', 200, { id: IMAGE }, { params: { image_id: IMAGE } })),
    ).toEqual(['getUpload status: 404 / 200']);
    // the cascade: the prediction, its exports and its shares went with the image
    expect(
      subjects(
        oracle,
        exchange('getPrediction', 404, { detail: 'x' }, { params: { prediction_id: PREDICTION } }),
      ),
    ).toEqual([]);
    expect(
      subjects(oracle, exchange('exportRoisGeojson', 200, {}, { params: { segmentation_id: SEGMENTATION } })),
    ).toEqual(['exportRoisGeojson status: 404 / 200']);
  });

  it('predicts the identical-in-flight rule: skipped only with the in-flight prediction, never across models', () => {
    const oracle = new Oracle();
    oracle.knowKeys({ main: KEY });
    oracle.observe(
      exchange('listModels', 200, [
        { id: MODEL, name: 'a', kind: 'base' },
        { id: SHARE, name: 'b', kind: 'base' },
      ]),
    );
    oracle.observe(
      exchange(
        'uploadImage',
        200,
        { image: { id: IMAGE, upload_status: 'ready', shape: [1] }, upload: null },
        { sent: { file: { name: 'a.tif', size: 1 } } },
      ),
    );
    const predict = (model: string, status: string, id: string) =>
      subjects(
        oracle,
        exchange(
          'createPrediction',
          200,
          { prediction_id: id, status },
          { sent: { image_id: IMAGE, model_id: model } },
        ),
      );
    expect(predict(MODEL, 'submitted', PREDICTION)).toEqual([]);
    expect(predict(MODEL, 'skipped', PREDICTION)).toEqual([]);
    expect(predict(SHARE, 'skipped', PREDICTION)).toEqual([
      'createPrediction: status (no identical prediction in flight): "submitted" / "skipped"',
    ]);
  });

  it('predicts a repeat of a prediction the control plane holds in flight skipped, at the analysis cap and at the storage cap too', () => {
    const oracle = new Oracle();
    const admin = { key: 'admin', method: 'POST' };
    oracle.observe(organizationMade(ORG, KEY, { plan: { storage_cap_images: 1, monthly_analysis_cap: 1 } }));
    oracle.observe(
      exchange(
        'mockSetProgress',
        200,
        { organization_id: ORG, start_delay_ms: 0, run_delay_ms: 0, complete_after_polls: 2 },
        { ...admin, method: 'PUT', url: 'http://target/__mock/predictions/progress' },
      ),
    );
    oracle.observe(exchange('listModels', 200, [{ id: MODEL, name: 'a', kind: 'base' }]));
    oracle.observe(
      exchange(
        'uploadImage',
        200,
        { image: { id: IMAGE, upload_status: 'ready', shape: [1] }, upload: null },
        { sent: { file: { name: 'a.tif', size: 1 } } },
      ),
    );
    const predict = (status: number, body: unknown) =>
      subjects(
        oracle,
        exchange('createPrediction', status, body, { sent: { image_id: IMAGE, model_id: MODEL } }),
      );
    const refused = { detail: 'Monthly analysis cap reached' };
    // the only image fills the storage cap: a prediction is still taken (the storage cap is of uploads)
    expect(predict(402, { detail: 'Storage cap reached' })).toEqual([
      'createPrediction 402 detail: the monthly analysis cap / "Storage cap reached"',
      'createPrediction status: 200 / 402',
    ]);
    expect(predict(200, { prediction_id: PREDICTION, status: 'submitted' })).toEqual([]);
    // the analysis cap is reached, and the prediction held until its second poll: skipped, never 402
    expect(predict(402, refused)).toEqual(['createPrediction status: 200 / 402']);
    expect(predict(200, { prediction_id: PREDICTION, status: 'skipped' })).toEqual([]);
    const poll = () =>
      oracle.observe(
        exchange(
          'getPrediction',
          200,
          { prediction_id: PREDICTION, status: 'STARTED', image_id: IMAGE, model_id: MODEL },
          { params: { prediction_id: PREDICTION } },
        ),
      );
    expect(poll()).toEqual([]);
    expect(predict(200, { prediction_id: SHARE, status: 'submitted' })).toEqual([
      'createPrediction (an identical prediction held in flight): status: "skipped" / "submitted"',
      `createPrediction (an identical prediction held in flight): prediction_id: "${PREDICTION}" / "${SHARE}"`,
    ]);
    // past the poll that may publish its outcome, it may have ended: a 402 is the cap's again
    expect(poll()).toEqual([]);
    expect(predict(402, refused)).toEqual([]);
  });

  it('predicts counts every export and the share page must agree on', () => {
    const oracle = withSegmentation();
    const csv = (rows: string[]) =>
      exchange('exportMeasurementsCsv', 200, undefined, {
        params: { segmentation_id: SEGMENTATION },
        headers: { 'content-type': 'text/csv; charset=utf-8' },
        bytes: Buffer.from(
          `image_name,image_width,image_height,segmentation_id,segmentation_source,model_name,confluency,roi_index,roi_id,cell_type,tags,entity_type,area_px,perimeter_px,centroid_x,centroid_y,bbox_x,bbox_y,bbox_w,bbox_h\n${rows.join('\n')}\n`,
        ),
      });
    const row = (i: number, area = '3') =>
      `cells.tif,4,4,${SEGMENTATION},mock,nuclei,1.5,${i},roi-${i},cell,,cell,${area},6.0,1.5,1.5,1,1,2,2`;
    expect(oracle.observe(csv([row(1), row(2), row(3)]))).toEqual([]);
    expect(subjects(oracle, csv([row(1), row(2, '3.0'), row(3)]))).toEqual([
      'exportMeasurementsCsv: area_px: "an integer" / "3.0"',
    ]);
    expect(subjects(oracle, csv([row(1), row(2)]))).toContain('exportMeasurementsCsv: rows: 3 / 2');
  });

  it('predicts view counts and what the public page shows, and the link dead after revoke', () => {
    const oracle = withSegmentation();
    const url = 'http://target/share/tok_abcdefghijklmnop';
    const share = {
      id: SHARE,
      segmentation_id: SEGMENTATION,
      access: 'anyone_with_link',
      role: 'viewer',
      url,
      view_count: 0,
      last_viewed_at: null,
      created_at: 't',
      revoked_at: null,
    };
    expect(
      oracle.observe(exchange('createShare', 200, share, { sent: { segmentation_id: SEGMENTATION } })),
    ).toEqual([]);
    const page = (shows: string, status = 200) =>
      exchange('share page GET', status, undefined, {
        url,
        key: null,
        bytes: Buffer.from(`<p>${shows} cells</p>`),
      });
    expect(oracle.observe(page('3'))).toEqual([]);
    expect(subjects(oracle, page('4'))[0]).toMatch(
      /the count shown: 3 \(cell_count of its prediction\) \/ 4 cells/,
    );
    const read = (viewCount: number) =>
      subjects(
        oracle,
        exchange(
          'getShare',
          200,
          { ...share, view_count: viewCount, last_viewed_at: new Date().toISOString() },
          { params: { share_id: SHARE } },
        ),
      );
    expect(read(2)).toEqual([]);
    expect(read(1)).toEqual(['getShare: view_count: 2 / 1']);
    oracle.observe(exchange('revokeShare', 204, undefined, { params: { share_id: SHARE } }));
    expect(subjects(oracle, page('3'))).toEqual([`GET the share page of share ${SHARE}: not 2xx / 200`]);
  });

  it("tells no organization apart in a 404: another organization's id answers as a missing id does", () => {
    const oracle = withSegmentation();
    const notFound = (id: string, detail: string) =>
      exchange('getUpload', 404, { detail }, { key: OTHER, params: { image_id: id } });
    const missing = '77777777-7777-4777-8777-777777777777';
    expect(oracle.observe(notFound(missing, `Image ${missing} not found`))).toEqual([]);
    expect(subjects(oracle, notFound(IMAGE, `Image ${IMAGE} belongs to another organization`))).toEqual([
      `getUpload 404 for another organization's id (${IMAGE}), against a missing id's (${missing}): body: "{\\"detail\\":\\"Image {id} not found\\"}" / "{\\"detail\\":\\"Image {id} belongs to another organization\\"}"`,
    ]);
  });

  it("predicts an organization's counters after deletes and failed predictions, and which cap a 402 names", () => {
    const oracle = new Oracle();
    const admin = { key: 'admin', url: 'http://target/__mock/organizations' };
    oracle.observe(organizationMade(ORG, KEY, { plan: { storage_cap_images: 1, monthly_analysis_cap: 5 } }));
    const usage = (images: number, analyses: number) =>
      subjects(
        oracle,
        exchange(
          'mockListOrganizations',
          200,
          [{ id: ORG, usage: { images, analyses_this_month: analyses } }],
          admin,
        ),
      );
    oracle.observe(
      exchange(
        'uploadImage',
        200,
        { image: { id: IMAGE, upload_status: 'ready', shape: [1] }, upload: null },
        { sent: { file: { name: 'a', size: 1 } } },
      ),
    );
    expect(usage(1, 0)).toEqual([]);
    expect(
      subjects(
        oracle,
        exchange(
          'uploadImage',
          200,
          { image: { id: SHARE, name: 'b', size: 1, upload_status: 'ready', shape: [1] }, upload: null },
          { sent: { file: { name: 'b', size: 1 } } },
        ),
      ),
    ).toEqual(['uploadImage status: 402 / 200']);
    expect(
      subjects(
        oracle,
        exchange(
          'uploadImage',
          402,
          { detail: 'Monthly analysis cap reached' },
          { sent: { file: { name: 'b', size: 1 } } },
        ),
      ),
    ).toEqual(['uploadImage 402 detail: the storage cap / "Monthly analysis cap reached"']);
    oracle.observe(exchange('deleteUpload', 200, { success: true }, { params: { image_id: IMAGE } }));
    // the image the target let in over the cap exists: the model follows it, and counts one left
    expect(usage(1, 0)).toEqual([]);
    expect(usage(2, 0)).toEqual([`mockListOrganizations: usage of organization ${ORG}.images: 1 / 2`]);
  });

  it('holds a repeated request to the headers of the first, and a closed upload to no more parts', () => {
    const oracle = withSegmentation();
    const csv = (disposition: string) =>
      exchange('exportRoisZip', 200, undefined, {
        params: { segmentation_id: SEGMENTATION },
        headers: {
          'content-type': 'application/zip',
          'content-disposition': disposition,
          date: String(Math.random()),
        },
        bytes: Buffer.from('not a zip'),
      });
    expect(oracle.observe(csv('attachment; filename="cells_rois.zip"'))).toEqual([]);
    expect(oracle.observe(csv('attachment; filename="cells_rois.zip"'))).toEqual([]);
    expect(subjects(oracle, csv('attachment'))).toEqual([
      'exportRoisZip asked again (200): content-disposition: attachment; filename="cells_rois.zip" / attachment',
    ]);
    const plan = {
      part_size: 5,
      upload_id: 'u',
      urls: [
        { part_number: 1, url: 'http://store/p1' },
        { part_number: 2, url: 'http://store/p2' },
      ],
    };
    const opened = exchange(
      'uploadImage',
      200,
      {
        image: { id: PREDICTION.replace('2222', '9999'), name: 'r.tif', size: 8, upload_status: 'uploading' },
        success: true,
        upload: plan,
      },
      { sent: { name: 'r.tif', size: 8 } },
    );
    expect(oracle.observe(opened)).toEqual([]);
    const put = () =>
      exchange('presigned part PUT', 200, undefined, { method: 'PUT', url: 'http://store/p1', key: null });
    expect(oracle.observe(put())).toEqual([]);
    oracle.observe(
      exchange(
        'abortUpload',
        200,
        { status: 'aborted' },
        { params: { image_id: PREDICTION.replace('2222', '9999') } },
      ),
    );
    expect(subjects(oracle, put())[0]).toMatch(/after abort: refused \(4xx\) \/ 200/);
  });

  it('predicts a complete with no body or an empty parts list taken once every part is in storage at its size', () => {
    const oracle = new Oracle();
    oracle.knowKeys({ main: KEY });
    openResumable(oracle, 'r.tif', 8, 'd', 2);
    const put = (n: number, sentBytes: number) =>
      oracle.observe(
        exchange('presigned part PUT', 200, undefined, {
          method: 'PUT',
          url: `http://store/d${n}`,
          key: null,
          headers: { etag: `"e${n}"` },
          sentBytes,
        }),
      );
    const complete = (sent: unknown, status: number) =>
      subjects(
        oracle,
        exchange('completeUpload', status, status === 202 ? { status: 'processing' } : { detail: 'no' }, {
          method: 'POST',
          params: { image_id: IMAGE },
          sent,
        }),
      );
    // storage does not hold the whole plan yet: nothing is predicted
    expect(complete({ parts: [] }, 422)).toEqual([]);
    put(1, 5);
    put(2, 2);
    expect(complete(undefined, 422)).toEqual([]);
    put(2, 3);
    expect(complete({ parts: [] }, 422)).toEqual(['completeUpload status: 202 / 422']);
    expect(complete({}, 422)).toEqual(['completeUpload status: 202 / 422']);
    // an empty body under a JSON Content-Type is still no body
    expect(complete('', 422)).toEqual(['completeUpload status: 202 / 422']);
    expect(complete({ parts: 'all' }, 422)).toEqual([]); // not a list: the document's schema judges it
    expect(complete(undefined, 202)).toEqual([]);
  });

  it('flags a plan handed out twice, and one short of a part for the size', () => {
    const oracle = new Oracle();
    oracle.knowKeys({ main: KEY });
    const open = (id: string, size: number, plan: Record<string, unknown>) =>
      subjects(
        oracle,
        exchange(
          'uploadImage',
          200,
          { image: { id, name: 'r.tif', size, upload_status: 'uploading' }, success: true, upload: plan },
          { sent: { name: 'r.tif', size } },
        ),
      );
    const urls = (tag: string, parts: number) =>
      Array.from({ length: parts }, (_, i) => ({ part_number: i + 1, url: `http://store/${tag}${i + 1}` }));
    const first = { part_size: 5, upload_id: 'u1', urls: urls('a', 2) };
    expect(open(IMAGE, 6, first)).toEqual([]);
    expect(open(PREDICTION, 6, { part_size: 5, upload_id: 'u2', urls: urls('b', 2) })).toEqual([]);
    expect(open(SHARE, 6, first)).toEqual([
      `uploadImage: upload.upload_id: "not image ${IMAGE}'s" / "u1"`,
      `uploadImage: upload.urls: "none of image ${IMAGE}'s" / ["http://store/a1","http://store/a2"]`,
    ]);
    expect(open(MODEL, 6, { part_size: 5, upload_id: 'u4', urls: urls('c', 1) })).toEqual([
      'uploadImage: upload.urls (parts of 6 bytes by 5): 2 / 1',
    ]);
  });

  it('predicts a complete with a parts list: subset, part outside the plan and wrong ETag refused, any order taken', () => {
    const oracle = new Oracle();
    oracle.knowKeys({ main: KEY });
    const image = openResumable(oracle, 'r.tif', 8, 'q', 2);
    const complete = (parts: Array<[number, string]>, status: number) =>
      subjects(
        oracle,
        exchange('completeUpload', status, status === 202 ? { status: 'processing' } : { detail: 'no' }, {
          method: 'POST',
          params: { image_id: IMAGE },
          sent: { parts: parts.map(([part_number, etag]) => ({ part_number, etag })) },
        }),
      );
    const read = (status: string) =>
      subjects(
        oracle,
        exchange(
          'getUpload',
          200,
          { ...image, upload_status: status, shape: [2, 2] },
          { params: { image_id: IMAGE } },
        ),
      );
    // no part PUT yet: a list names parts that never arrived
    expect(
      complete(
        [
          [1, '"e1"'],
          [2, '"e2"'],
        ],
        202,
      ),
    ).toEqual(['completeUpload status: 422 / 202']);
    for (const n of [1, 2])
      oracle.observe(
        exchange('presigned part PUT', 200, undefined, {
          method: 'PUT',
          url: `http://store/q${n}`,
          key: null,
          headers: { etag: `"e${n}"` },
        }),
      );
    expect(complete([[1, '"e1"']], 422)).toEqual([]);
    expect(complete([[1, '"e1"']], 202)).toEqual(['completeUpload status: 422 / 202']);
    // a 202 the model refused leaves it expecting the upload still open
    expect(read('processing')).toEqual(['getUpload: upload_status: "uploading" / "processing"']);
    expect(
      complete(
        [
          [1, 'e1'],
          [2, '"E2"'],
          [3, '"e1"'],
        ],
        202,
      ),
    ).toEqual(['completeUpload status: 422 / 202']);
    expect(
      complete(
        [
          [1, '"e1"'],
          [2, '"e9"'],
        ],
        202,
      ),
    ).toEqual(['completeUpload status: 422 / 202']);
    expect(
      complete(
        [
          [2, '"e2"'],
          [2, '"e2"'],
          [1, '"e1"'],
        ],
        422,
      ),
    ).toEqual([]);
    expect(read('uploading')).toEqual([]);
    expect(
      complete(
        [
          [2, '"e2"'],
          [1, 'E1'],
        ],
        422,
      ),
    ).toEqual(['completeUpload status: 202 / 422']);
    expect(read('uploading')).toEqual([]);
    expect(
      complete(
        [
          [2, '"e2"'],
          [1, '"e1"'],
        ],
        202,
      ),
    ).toEqual([]);
    expect(read('ready')).toEqual([]);
  });

  it("files a part listed twice under UP-23 alone: the document's 422, while a merging 202 closes the upload", () => {
    const oracle = new Oracle();
    oracle.knowKeys({ main: KEY });
    const image = openResumable(oracle, 'd.tif', 4, 'd', 1);
    oracle.observe(
      exchange('presigned part PUT', 200, undefined, {
        method: 'PUT',
        url: 'http://store/d1',
        key: null,
        headers: { etag: '"e1"' },
      }),
    );
    const twice = (status: number, body: unknown) =>
      oracle
        .observe(
          exchange('completeUpload', status, body, {
            method: 'POST',
            params: { image_id: IMAGE },
            sent: { parts: [1, 1].map((part_number) => ({ part_number, etag: '"e1"' })) },
          }),
        )
        .map((f) => `${f.clause}: ${f.subject}: ${f.predicted} / ${f.received}`);
    expect(twice(422, { detail: [] })).toEqual(['UP-23: completeUpload: type of detail: "a string" / []']);
    expect(twice(202, { status: 'processing' })).toEqual(['UP-23: completeUpload status: 422 / 202']);
    // merged and assembled: the image moves on as after any complete
    expect(
      oracle.observe(
        exchange(
          'getUpload',
          200,
          { ...image, upload_status: 'processing' },
          { params: { image_id: IMAGE } },
        ),
      ),
    ).toEqual([]);
  });

  it("holds a part URL to the document's 24-hour life by the target's clock, learnt from the mock's clock", () => {
    const oracle = new Oracle();
    oracle.knowKeys({ main: KEY });
    const clientNow = Date.now();
    const day = 86_400_000;
    const clock = (now: number, at: number) =>
      oracle.observe(
        exchange(
          'mockSetClock',
          200,
          { now: new Date(now).toISOString(), offset_ms: now - at, month: '2026-11' },
          { method: 'POST', url: 'http://target/__mock/clock', key: null, sentAt: at, receivedAt: at },
        ),
      );
    // the target's clock runs an hour ahead of the client's while the plan is handed out
    const issuedAt = Math.floor((clientNow + 3_600_000) / 1000) * 1000;
    clock(issuedAt, clientNow);
    const url = 'http://store/life1';
    const plan = { part_size: 10, upload_id: 'u', urls: [{ part_number: 1, url }] };
    oracle.observe(
      exchange(
        'uploadImage',
        200,
        {
          image: { id: IMAGE, name: 'r.tif', size: 8, upload_status: 'uploading' },
          success: true,
          upload: plan,
        },
        { sent: { name: 'r.tif', size: 8 }, sentAt: clientNow, receivedAt: clientNow + 200 },
      ),
    );
    const put = (targetTime: number, status: number, text: string) => {
      const at = clientNow + 10_000;
      clock(targetTime, at);
      return subjects(
        oracle,
        exchange('presigned part PUT', status, undefined, {
          method: 'PUT',
          url,
          key: null,
          sentAt: at + 5,
          receivedAt: at + 30,
          bytes: Buffer.from(text),
        }),
      ).map((s) => s.replace(/, sent .* expiry at the latest/, ''));
    };
    const expired = '<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>';
    expect(put(issuedAt + day - 2000, 200, '')).toEqual([]);
    expect(put(issuedAt + day - 2000, 403, expired)).toEqual([
      `PUT a part URL of image ${IMAGE}: taken: the URL still lives / 403 AccessDenied`,
    ]);
    // at the boundary the spans overlap: nothing is predicted
    expect(put(issuedAt + day, 200, '')).toEqual([]);
    expect(put(issuedAt + day + 2000, 403, expired)).toEqual([]);
    expect(put(issuedAt + day + 2000, 200, '')).toEqual([
      `PUT a part URL of image ${IMAGE}: 403 with an S3-style XML AccessDenied / 200 ""`,
    ]);
    expect(put(issuedAt + day + 2000, 403, '<Error><Code>SignatureDoesNotMatch</Code></Error>')).toHaveLength(
      1,
    );
  });

  it('refuses a known key with its case or one character changed, or characters added or cut', () => {
    const oracle = new Oracle();
    oracle.knowKeys({ main: 'sk_test_abc123' });
    const list = (key: string, status: number) =>
      subjects(oracle, exchange('listModels', status, [], { key }));
    expect(list('SK_TEST_ABC123', 401)).toEqual([]);
    expect(list('SK_TEST_ABC123', 200)).toEqual(['listModels status: 401 / 200']);
    expect(list('sk_test_abc120', 200)).toEqual(['listModels status: 401 / 200']);
    expect(list('sk_test_abc1230', 200)).toEqual(['listModels status: 401 / 200']);
    expect(list('sk_test_abc123_and_more', 401)).toEqual([]);
    expect(list('sk_test_abc12', 200)).toEqual(['listModels status: 401 / 200']);
    expect(list('sk_test_made_up_entirely', 200)).toEqual([]); // another key it does not know: not judged
  });

  it("predicts an organization's custom models in its list, and a raised plan lifting a 402", () => {
    const oracle = new Oracle();
    const admin = { key: 'admin', method: 'POST' };
    oracle.observe(organizationMade(ORG, KEY, { plan: { storage_cap_images: 5, monthly_analysis_cap: 0 } }));
    const base = { id: MODEL, name: 'nuclei', kind: 'base' };
    expect(subjects(oracle, exchange('listModels', 200, [base]))).toEqual([]);
    oracle.observe(
      exchange(
        'mockCreateModel',
        200,
        { id: SHARE, name: 'mine', kind: 'custom' },
        { ...admin, url: `http://target/__mock/organizations/${ORG}/models` },
      ),
    );
    expect(subjects(oracle, exchange('listModels', 200, [base]))).toEqual([
      `listModels: custom model ${SHARE}: {"id":"${SHARE}","name":"mine","kind":"custom"} / null`,
      `listModels: the custom models: ["${SHARE}"] / []`,
    ]);
    expect(
      subjects(oracle, exchange('listModels', 200, [base, { id: SHARE, name: 'mine', kind: 'base' }]))[0],
    ).toMatch(/custom model .*"kind":"custom"} \/ .*"kind":"base"}/);
    expect(
      subjects(oracle, exchange('listModels', 200, [base, { id: SHARE, name: 'mine', kind: 'custom' }])),
    ).toEqual([]);
    oracle.observe(
      exchange(
        'uploadImage',
        200,
        { image: { id: IMAGE, upload_status: 'ready', shape: [1] }, upload: null },
        { sent: { file: { name: 'a', size: 1 } } },
      ),
    );
    const predict = (status: number) =>
      subjects(
        oracle,
        exchange(
          'createPrediction',
          status,
          status === 402
            ? { detail: 'Monthly analysis cap reached' }
            : { prediction_id: PREDICTION, status: 'submitted' },
          { sent: { image_id: IMAGE, model_id: MODEL } },
        ),
      );
    expect(predict(402)).toEqual([]);
    oracle.observe(
      exchange(
        'mockSetPlan',
        200,
        {},
        {
          key: 'admin',
          method: 'PUT',
          url: `http://target/__mock/organizations/${ORG}/plan`,
          sent: { name: 'raised', storage_cap_images: 5, monthly_analysis_cap: 2 },
        },
      ),
    );
    expect(predict(402)).toEqual(['createPrediction status: 200 / 402']);
  });

  it('keeps a FAILED prediction in the analysis cap, and reads back the custom model a prediction was started with', () => {
    const oracle = new Oracle();
    oracle.observe(organizationMade(ORG, KEY, { plan: { storage_cap_images: 5, monthly_analysis_cap: 1 } }));
    const custom = { id: SHARE, name: 'mine', kind: 'custom' };
    oracle.observe(
      exchange('mockCreateModel', 200, custom, {
        key: 'admin',
        method: 'POST',
        url: `http://target/__mock/organizations/${ORG}/models`,
      }),
    );
    expect(
      subjects(oracle, exchange('listModels', 200, [{ id: MODEL, name: 'nuclei', kind: 'base' }, custom])),
    ).toEqual([]);
    oracle.observe(
      exchange(
        'uploadImage',
        200,
        { image: { id: IMAGE, upload_status: 'ready', shape: [1] }, upload: null },
        { sent: { file: { name: 'a', size: 1 } } },
      ),
    );
    const sent = { sent: { image_id: IMAGE, model_id: SHARE } };
    expect(
      subjects(
        oracle,
        exchange('createPrediction', 200, { prediction_id: PREDICTION, status: 'submitted' }, sent),
      ),
    ).toEqual([]);
    const failed = { prediction_id: PREDICTION, status: 'FAILED', image_id: IMAGE, error: 'x' };
    const poll = (modelId: string) =>
      subjects(
        oracle,
        exchange(
          'getPrediction',
          200,
          { ...failed, model_id: modelId },
          { params: { prediction_id: PREDICTION } },
        ),
      );
    expect(poll(SHARE)).toEqual([]);
    expect(poll(MODEL)).toEqual([`getPrediction: model_id: "${SHARE}" / "${MODEL}"`]);
    expect(
      subjects(
        oracle,
        exchange('createPrediction', 200, { prediction_id: SEGMENTATION, status: 'submitted' }, sent),
      ),
    ).toEqual(['createPrediction status: 402 / 200']);
  });

  it('predicts a 304 only for the current ETag, the overlay capped by max_size, and quoted CSV cells', () => {
    const oracle = withSegmentation();
    const params = { segmentation_id: SEGMENTATION };
    const url = 'http://target/api/v1/export/x/measurements.csv';
    oracle.observe(
      exchange('exportMeasurementsCsv', 200, undefined, {
        params,
        url,
        headers: { etag: '"v1"' },
        bytes: Buffer.from(''),
      }),
    );
    const conditional = (tag: string) =>
      subjects(
        oracle,
        exchange('exportMeasurementsCsv', 304, undefined, {
          params,
          url,
          headers: { etag: '"v1"' },
          sentHeaders: { 'if-none-match': tag },
          bytes: Buffer.alloc(0),
        }),
      );
    expect(conditional('"v1"')).toEqual([]);
    expect(conditional('W/"v1"')).toEqual([]);
    expect(conditional('"other"')[0]).toMatch(/If-None-Match: "other".*: 200 \(the file\) \/ 304/);

    const png = (width: number, height: number) => {
      const bytes = Buffer.alloc(33);
      bytes.writeUInt32BE(0x89504e47, 0);
      bytes.write('IHDR', 12, 'latin1');
      bytes.writeUInt32BE(width, 16);
      bytes.writeUInt32BE(height, 20);
      return bytes;
    };
    const overlay = (query: string, width: number, height: number) =>
      subjects(
        oracle,
        exchange('exportOverlayPng', 200, undefined, {
          params,
          url: `http://target/api/v1/export/x/overlay.png${query}`,
          headers: { 'content-type': 'image/png' },
          bytes: png(width, height),
        }),
      );
    expect(overlay('', 400, 200)).toEqual([]);
    expect(overlay('?max_size=64', 64, 32)).toEqual([]);
    expect(overlay('?max_size=1000', 400, 200)).toEqual([]);
    expect(overlay('?max_size=64', 400, 200)).toEqual([
      'exportOverlayPng?max_size=64: size (full size 400x200): "64x32" / "400x200"',
    ]);

    const header =
      'image_name,image_width,image_height,segmentation_id,segmentation_source,model_name,confluency,roi_index,roi_id,cell_type,tags,entity_type,area_px,perimeter_px,centroid_x,centroid_y,bbox_x,bbox_y,bbox_w,bbox_h';
    const row = (i: number) =>
      `a,b,4,4,${SEGMENTATION},mock,nuclei,1.5,${i},roi-${i},cell,,cell,3,6.0,1.5,1.5,1,1,2,2`;
    const csv = exchange('exportMeasurementsCsv', 200, undefined, {
      params,
      headers: { 'content-type': 'text/csv; charset=utf-8' },
      bytes: Buffer.from(`${header}\n${[1, 2, 3].map(row).join('\n')}\n`),
    });
    expect(subjects(oracle, csv)).toContain('exportMeasurementsCsv: cells of a row: 20 / 21');
  });

  it('holds every count the share page states to the prediction, not only one', () => {
    const oracle = withSegmentation();
    const url = 'http://target/share/tok_counted';
    oracle.observe(
      exchange(
        'createShare',
        200,
        {
          id: SHARE,
          segmentation_id: SEGMENTATION,
          access: 'anyone_with_link',
          role: 'viewer',
          url,
          view_count: 0,
          last_viewed_at: null,
          revoked_at: null,
        },
        { sent: { segmentation_id: SEGMENTATION } },
      ),
    );
    const page = (html: string) =>
      subjects(
        oracle,
        exchange('share page GET', 200, undefined, { url, key: null, bytes: Buffer.from(html) }),
      );
    expect(page('<title>3 cells</title><p><strong>3</strong> cells</p>')).toEqual([]);
    expect(page('<title>3 cells</title><p><strong>4</strong> cells</p>')[0]).toMatch(
      /the count shown: 3 .* \/ 4 cells/,
    );
  });
});

describe('the oracle on paths set B showed undriven', () => {
  it('predicts 401 for a keyless or forged request at a segmentation that exists', () => {
    const oracle = withSegmentation();
    const keyless = (key: string | null, status: number) =>
      exchange(
        'exportMeasurementsCsv',
        status,
        { detail: 'Not authenticated' },
        {
          key,
          params: { segmentation_id: SEGMENTATION },
        },
      );
    expect(oracle.observe(keyless(null, 401))).toEqual([]);
    expect(subjects(oracle, keyless(null, 200))).toEqual(['exportMeasurementsCsv status: 401 / 200']);
    expect(subjects(oracle, keyless(KEY.slice(0, -1) + 'X', 200))).toEqual([
      'exportMeasurementsCsv status: 401 / 200',
    ]);
  });

  it("predicts an injected 429's Retry-After in seconds, and leaves a real 429's wait to the target", () => {
    const oracle = new Oracle();
    oracle.knowKeys({ main: KEY });
    const tooMany = (wait: string, injected: boolean) =>
      exchange(
        'getUpload',
        429,
        { detail: 'Too many requests' },
        {
          injected,
          headers: { 'content-type': 'application/json', 'retry-after': wait },
        },
      );
    expect(oracle.observe(tooMany('1', true))).toEqual([]);
    expect(subjects(oracle, tooMany('1000', true))).toEqual([
      'getUpload injected 429: Retry-After: 1 (second) / 1000',
    ]);
    expect(subjects(oracle, tooMany('30', false)).filter((s) => s.includes('Retry-After'))).toEqual([]);
  });

  it('predicts a part URL refused once its image is deleted mid-upload', () => {
    const oracle = withSegmentation();
    const id = PREDICTION.replace('2222', '8888');
    oracle.observe(
      exchange(
        'uploadImage',
        200,
        {
          image: { id, name: 'r.tif', size: 8, upload_status: 'uploading' },
          success: true,
          upload: { part_size: 8, upload_id: 'u', urls: [{ part_number: 1, url: 'http://store/d1' }] },
        },
        { sent: { name: 'r.tif', size: 8 } },
      ),
    );
    oracle.observe(exchange('deleteUpload', 200, { success: true }, { params: { image_id: id } }));
    const put = (status: number) =>
      exchange('presigned part PUT', status, undefined, { method: 'PUT', url: 'http://store/d1', key: null });
    expect(oracle.observe(put(404))).toEqual([]);
    expect(subjects(oracle, put(200))).toEqual([
      `PUT a part URL of image ${id} after its delete: refused (4xx) / 200`,
    ]);
  });

  const srgbBlend = (from: number, to: number, a: number) => Math.round(from + a * (to - from));
  /** The same blend in linear light (sRGB transfer curve out and back), as a gamma-aware drawer does. */
  const linearBlend = (from: number, to: number, a: number) => {
    const lin = (v: number) => ((v / 255 + 0.055) / 1.055) ** 2.4;
    return Math.round(255 * (1.055 * (lin(from) + a * (lin(to) - lin(from))) ** (1 / 2.4) - 0.055));
  };
  /** A 20x20 grey overlay (200) of one 8x8 cell at (6, 6): outline in `outline`, the inside blended at `fill`. */
  async function overlay(outline: number[], fill: number, blend = srgbBlend): Promise<Buffer> {
    const rgb = Buffer.alloc(20 * 20 * 3, 200);
    for (let y = 6; y < 14; y++)
      for (let x = 6; x < 14; x++) {
        const edge = x === 6 || y === 6 || x === 13 || y === 13;
        for (let k = 0; k < 3; k++)
          rgb[(y * 20 + x) * 3 + k] = edge ? outline[k] : blend(200, outline[k], fill);
      }
    return sharp(rgb, { raw: { width: 20, height: 20, channels: 3 } })
      .png({ adaptiveFiltering: true })
      .toBuffer();
  }
  const YELLOW = [255, 255, 0];
  const drawn = (query: string, bytes: Buffer) =>
    exchange('exportOverlayPng', 200, bytes, {
      url: `http://target/api/v1/export/${SEGMENTATION}/overlay.png${query}`,
      params: { segmentation_id: SEGMENTATION },
      headers: { 'content-type': 'image/png' },
      bytes,
    });

  it('predicts the outlines drawn in outline_color, against the overlay in another colour', async () => {
    const oracle = withSegmentation();
    expect(oracle.observe(drawn('', await overlay(YELLOW, 0)))).toEqual([]);
    expect(oracle.observe(drawn('?outline_color=ff0000', await overlay([255, 0, 0], 0)))).toEqual([]);
    // read as BGR: the red asked for comes out blue
    expect(subjects(oracle, drawn('?outline_color=FF0000', await overlay([0, 0, 255], 0)))).toEqual([
      'exportOverlayPng?outline_color=FF0000: colour of the 28 pixels where it differs from the FFFF00 overlay: FF0000 / 0000FF (28 of them)',
    ]);
  });

  it('predicts each filled pixel blended fill_opacity of the way to outline_color', async () => {
    const oracle = withSegmentation();
    expect(oracle.observe(drawn('', await overlay(YELLOW, 0)))).toEqual([]);
    expect(oracle.observe(drawn('?fill_opacity=0.5', await overlay(YELLOW, 0.5)))).toEqual([]);
    expect(oracle.observe(drawn('?fill_opacity=1', await overlay(YELLOW, 1)))).toEqual([]);
    // "blended" names no colour space: a drawer that blends in linear light is as right
    expect(oracle.observe(drawn('?fill_opacity=0.3', await overlay(YELLOW, 0.3, linearBlend)))).toEqual([]);
    // read as a percentage: an opacity of 1 draws 0.01
    const [finding] = oracle.observe(
      drawn('?fill_opacity=1&outline_color=FFFF00', await overlay(YELLOW, 0.01)),
    );
    expect(finding?.subject).toBe(
      'exportOverlayPng?fill_opacity=1&outline_color=FFFF00: pixels that differ from the unfilled overlay',
    );
    expect(finding?.received).toMatch(
      /^36 of 36 are not, e\.g\. at \(7, 7\): rgb\(200,200,200\) blended to rgb\(255,255,0\), drawn rgb\(201,201,198\)$/,
    );
  });
});

describe('the oracle on what an export is asked with', () => {
  const params = { segmentation_id: SEGMENTATION };
  const answer = (operationId: string, query: string, status: number, over: Partial<Exchange> = {}) =>
    exchange(operationId, status, status === 200 ? undefined : { detail: 'refused' }, {
      params,
      url: `http://target/api/v1/export/x/${operationId}${query}`,
      headers: { 'content-type': status === 200 ? 'application/octet-stream' : 'application/json' },
      bytes: Buffer.alloc(0),
      ...over,
    });
  /** An export first sent with `etag`; then what the oracle says of an answer to If-None-Match `tags`. */
  const conditionalOn = (etag: string) => {
    const oracle = withSegmentation();
    const tagged = { headers: { etag } };
    expect(oracle.observe(answer('exportRoisZip', '', 200, tagged))).toEqual([]);
    return (tags: string, status: number) =>
      subjects(
        oracle,
        answer('exportRoisZip', '', status, { ...tagged, sentHeaders: { 'if-none-match': tags } }),
      );
  };

  it('predicts 304 when one tag of an If-None-Match list is the current ETag, and the file when none is', () => {
    const conditional = conditionalOn('"v1"');
    expect(conditional('"old", "v1"', 304)).toEqual([]);
    expect(conditional('"old", W/"v1"', 304)).toEqual([]);
    expect(conditional('"old", "older"', 200)).toEqual([]);
    expect(conditional('"old", "v1"', 200)).toEqual([
      'exportRoisZip with If-None-Match: "old", "v1" (its ETag is "v1"): 304 (no body) / 200',
    ]);
    expect(conditional('*', 200)).toHaveLength(1);
  });

  it('judges a conditional request whose strong ETag the target also gave another file', () => {
    const second = '77777777-7777-4777-8777-777777777777';
    const zipOf = (segmentation: string, content: string, etag: string, inm?: string) =>
      exchange('exportRoisZip', inm ? 304 : 200, undefined, {
        params: { segmentation_id: segmentation },
        url: `http://target/api/v1/export/${segmentation}/rois.zip`,
        headers: { 'content-type': 'application/zip', etag },
        bytes: Buffer.from(inm ? '' : content),
        ...(inm ? { sentHeaders: { 'if-none-match': inm } } : {}),
      });
    const twoSegmentations = () => {
      const oracle = withSegmentation();
      const prediction = '88888888-8888-4888-8888-888888888888';
      const done = { prediction_id: prediction, status: 'COMPLETED', image_id: IMAGE, model_id: MODEL };
      for (const step of [
        exchange(
          'createPrediction',
          200,
          { prediction_id: prediction, status: 'submitted', reason: '' },
          { sent: { image_id: IMAGE, model_id: MODEL } },
        ),
        exchange(
          'getPrediction',
          200,
          { ...done, segmentation_id: second, cell_count: 3 },
          { params: { prediction_id: prediction } },
        ),
      ])
        expect(oracle.observe(step)).toEqual([]);
      return oracle;
    };
    const shared = twoSegmentations();
    expect(shared.observe(zipOf(SEGMENTATION, 'first', '"t"'))).toEqual([]);
    expect(shared.observe(zipOf(second, 'second', '"t"'))).toEqual([]); // not asked conditionally
    expect(subjects(shared, zipOf(second, '', '"t"', '"t"'))).toEqual([
      `exportRoisZip with If-None-Match: its ETag "t" also came with http://target/api/v1/export/${SEGMENTATION}/rois.zip, whose bytes differ: an ETag of its own / "t"`,
    ]);
    expect(subjects(shared, zipOf(SEGMENTATION, '', '"t"', 'W/"t"'))).toHaveLength(1);
    // a validator naming no file's tag: the shared tag decides nothing there
    expect(
      shared.observe({ ...zipOf(second, 'second', '"t"'), sentHeaders: { 'if-none-match': '"x"' } }),
    ).toEqual([]);
    // a tag of each file's own, one tag for the same bytes, or weak tags: nothing to say
    for (const [a, b, tagA, tagB] of [
      ['first', 'second', '"a"', '"b"'],
      ['same', 'same', '"t"', '"t"'],
      ['first', 'second', 'W/"t"', 'W/"t"'],
    ]) {
      const oracle = twoSegmentations();
      oracle.observe(zipOf(SEGMENTATION, a, tagA));
      oracle.observe(zipOf(second, b, tagB));
      expect(oracle.observe(zipOf(second, '', tagB, tagB)), `${a} ${tagA}, ${b} ${tagB}`).toEqual([]);
    }
  });

  it('reads a comma inside a quoted ETag as part of the tag, not as a list separator', () => {
    const conditional = conditionalOn('"v1,2"');
    expect(conditional('"v1,2"', 304)).toEqual([]);
    expect(conditional('"old", "v1,2"', 304)).toEqual([]);
    expect(conditional('"v1"', 200)).toEqual([]);
    expect(conditional('"v1,2"', 200)).toHaveLength(1);
  });

  it('judges no answer to an If-None-Match that is no list of entity-tags', () => {
    const conditional = conditionalOn('"v1"');
    for (const malformed of ['w/"v1"', 'x"v1"', '"old""v1"'])
      for (const status of [200, 304])
        expect(conditional(malformed, status), `${malformed} ${status}`).toEqual([]);
  });

  it('predicts options the document takes answered, in either case of hex, and a column not spelt as listed refused', () => {
    const oracle = withSegmentation();
    expect(oracle.observe(answer('exportOverlayPng', '?outline_color=GG0000', 422))).toEqual([]);
    expect(oracle.observe(answer('exportOverlayPng', '?max_size=8', 422))).toEqual([]);
    expect(
      subjects(oracle, answer('exportOverlayPng', '?outline_color=ff0000&fill_opacity=0.5', 422)),
    ).toEqual(['exportOverlayPng status for ?outline_color=ff0000&fill_opacity=0.5: 200 (the export) / 422']);
    expect(subjects(oracle, answer('exportRoisGeojson', '', 400))).toEqual([
      'exportRoisGeojson status for no options: 200 (the export) / 400',
    ]);
    // a real rate limit may come at any time
    expect(oracle.observe(answer('exportRoisGeojson', '', 429))).toEqual([]);
    const detail = `Unknown column(s): 'AREA_PX'. Valid columns: ${CSV_COLUMNS.join(', ')}`;
    expect(
      oracle.observe(answer('exportMeasurementsCsv', '?columns=AREA_PX', 422, { body: { detail } })),
    ).toEqual([]);
    expect(subjects(oracle, answer('exportMeasurementsCsv', '?columns=AREA_PX', 200))).toEqual([
      'exportMeasurementsCsv status for columns AREA_PX: a 4xx error naming the unknown column(s) / 200',
    ]);
  });

  it("files an overlay drawn for an option the document refuses under VAL-05 alone: 422 predicted, a lenient reading's value left alone", () => {
    const oracle = withSegmentation();
    const refused = (query: string, status: number) =>
      oracle.observe(answer('exportOverlayPng', query, status)).map((f) => `${f.clause}: ${f.subject}`);
    for (const query of ['?max_size=8', '?max_size=65537', '?max_size=big', '?max_size=20.5'])
      expect(refused(query, 200), query).toEqual([`VAL-05: exportOverlayPng status for ${query.slice(1)}`]);
    expect(refused('?fill_opacity=1.5&outline_color=red', 304)).toEqual([
      'VAL-05: exportOverlayPng status for fill_opacity=1.5&outline_color=red',
    ]);
    for (const query of ['?max_size=8', '?fill_opacity=-1', '?outline_color=%23FF0000'])
      for (const status of [422, 429, 503]) expect(refused(query, status), `${query} ${status}`).toEqual([]);
    // what a validator may coerce either way decides nothing: the cap then is judged as a cap
    for (const query of ['?max_size=1e2', '?max_size=16.0', '?max_size=', '?max_size=16'])
      expect(refused(query, 200), query).toEqual([]);
  });

  it('predicts one row per cell with a selection of columns whose values repeat, and max_size never enlarging', () => {
    const oracle = withSegmentation();
    const csv = answer('exportMeasurementsCsv', '?columns=image_name', 200, {
      headers: { 'content-type': 'text/csv; charset=utf-8' },
      bytes: Buffer.from('image_name\ncells.tif\n'),
    });
    expect(subjects(oracle, csv)).toEqual(['exportMeasurementsCsv: rows: 3 / 1']);
    const png = (size: number) => {
      const bytes = Buffer.alloc(33);
      bytes.writeUInt32BE(0x89504e47, 0);
      bytes.write('IHDR', 12, 'latin1');
      bytes.writeUInt32BE(size, 16);
      bytes.writeUInt32BE(size, 20);
      return bytes;
    };
    const overlay = (query: string, size: number) =>
      subjects(oracle, answer('exportOverlayPng', query, 200, { bytes: png(size) }));
    expect(overlay('', 100)).toEqual([]);
    expect(overlay('?max_size=400', 100)).toEqual([]);
    expect(overlay('?max_size=400', 400)).toEqual([
      'exportOverlayPng?max_size=400: size (full size 100x100): "100x100" / "400x400"',
    ]);
  });
});

describe('the oracle on inputs no check sent before', () => {
  const share = (url: string) => ({
    id: SHARE,
    segmentation_id: SEGMENTATION,
    access: 'anyone_with_link',
    role: 'viewer',
    url,
    view_count: 0,
    last_viewed_at: null,
    created_at: 't',
    revoked_at: null,
  });
  const shared = (url: string): Oracle => {
    const oracle = withSegmentation();
    const created = exchange('createShare', 200, share(url), { sent: { segmentation_id: SEGMENTATION } });
    expect(oracle.observe(created)).toEqual([]);
    return oracle;
  };

  it("files a valid key's 401 under a scheme not written Bearer as AUTH-07, the suite's reading, and under Bearer as the stated rule", () => {
    const oracle = new Oracle();
    oracle.knowKeys({ main: KEY });
    const refused = (over: Partial<Exchange>) =>
      oracle.observe(exchange('listModels', 401, { detail: 'Not authenticated' }, over))[0]?.sentence;
    expect(refused({ scheme: 'bearer ' })).toMatch(/^AUTH-07, assumed/);
    expect(refused({ scheme: 'BEARER ' })).toMatch(/^AUTH-07, assumed/);
    expect(refused({})).toMatch(/^Every request carries Authorization: Bearer/);
  });

  it("takes a 401 or the key's own answer when the key is parted from Bearer by two spaces or a tab", () => {
    // RFC 9110's 1*SP allows more spaces; FastAPI's HTTPBearer splits at the first space and
    // finds none of the key (a tab: no space at all), and the document says neither
    const oracle = new Oracle();
    oracle.knowKeys({ main: KEY });
    for (const scheme of ['Bearer  ', 'Bearer\t', 'bearer \t'])
      expect(
        oracle.observe(exchange('listModels', 401, { detail: 'Not authenticated' }, { scheme })),
        JSON.stringify(scheme),
      ).toEqual([]);
    // taken, it is the key's answer: a 200 is judged as any other
    expect(oracle.observe(exchange('listModels', 200, [], { scheme: 'Bearer  ' }))).toEqual([]);
  });

  it("files a valid key in the query taken without the header as AUTH-09, the suite's reading, and a request with no key at all as the stated rule", () => {
    const oracle = new Oracle();
    oracle.knowKeys({ main: KEY });
    const taken = (url: string) =>
      oracle.observe(exchange('listModels', 200, [], { key: null, url }))[0]?.sentence;
    expect(taken(`http://target/api/v1/models?access_token=${KEY}`)).toMatch(/^AUTH-09, assumed/);
    expect(taken('http://target/api/v1/models?api_key=sk_test_nobody_has_it')).toMatch(
      /^Every request carries Authorization: Bearer/,
    );
    expect(taken('http://target/api/v1/models')).toMatch(/^Every request carries Authorization: Bearer/);
  });

  it("files a share page refused to a key it does not need as AUTH-08, the suite's reading, and refused to none as the stated rule", () => {
    const url = 'http://target/share/tok_abcdefghijklmnop';
    const oracle = shared(url);
    const refused = (key: string | null) =>
      oracle.observe(exchange('share page GET', 401, { detail: 'x' }, { url, key }))[0]?.sentence;
    expect(refused('sk_test_unknown')).toMatch(/^AUTH-08, assumed/);
    expect(refused(KEY)).toMatch(/^AUTH-08, assumed/);
    expect(refused(null)).toMatch(/^anyone with url can view/);
  });

  it('judges a path id in upper case as the lower-case id it names', () => {
    const oracle = new Oracle();
    oracle.knowKeys({ main: KEY });
    const id = 'abcdef01-2345-4678-9abc-def012345678';
    const image = { id, name: 'cells.tif', size: 10, upload_status: 'ready', shape: [4, 4] };
    const upload = exchange(
      'uploadImage',
      200,
      { image, success: true, upload: null },
      { sent: { file: { name: 'cells.tif', size: 10 } } },
    );
    expect(oracle.observe(upload)).toEqual([]);
    const read = (status: number, body: unknown) =>
      subjects(oracle, exchange('getImage', status, body, { params: { image_id: id.toUpperCase() } }));
    expect(read(200, image)).toEqual([]);
    expect(read(404, { detail: 'Image not found' })).toEqual(['getImage status: 200 / 404']);
    expect(
      oracle.observe(
        exchange('getImage', 404, { detail: 'x' }, { params: { image_id: id.toUpperCase() } }),
      )[0].sentence,
    ).toMatch(/upper case/);
    expect(read(200, { ...image, name: 'other.tif' })).toEqual(['getImage: name: "cells.tif" / "other.tif"']);
    // the answer carries the record's own id in lower case, not the path id as it was written
    expect(read(200, { ...image, id: id.toUpperCase() })).toEqual([
      `getImage: id: "${id}" / "${id.toUpperCase()}"`,
    ]);
  });

  it('predicts a link cut short or with a character changed closed, the whole link open', () => {
    const url = 'http://target/share/tok_abcdefghijklmnop';
    const oracle = shared(url);
    const page = (at: string, status: number) =>
      subjects(
        oracle,
        exchange('share page GET', status, undefined, {
          url: at,
          key: null,
          bytes: Buffer.from('<p>3 cells</p>'),
        }),
      );
    expect(page('http://target/share/tok_abcd', 404)).toEqual([]);
    expect(page('http://target/share/tok_abcd', 200)).toEqual([
      `GET a truncated or changed link of share ${SHARE} (http://target/share/tok_abcd): not 2xx / 200`,
    ]);
    expect(page('http://target/share/tok_abcdefghijklmnoX', 200)).toHaveLength(1);
    expect(page('http://target/share/something_else_entirely', 200)).toEqual([]); // not derived from a link it knows
    expect(page(url, 200)).toEqual([]);
  });

  it('predicts a link with its letters in another case closed: the token is matched as written', () => {
    const url = 'http://target/share/tok_abcdefghijklmnop';
    const oracle = shared(url);
    const page = (at: string, status: number) =>
      subjects(
        oracle,
        exchange('share page GET', status, undefined, {
          url: at,
          key: null,
          bytes: Buffer.from('<p>3 cells</p>'),
        }),
      );
    expect(page('http://target/share/TOK_ABCDEFGHIJKLMNOP', 404)).toEqual([]);
    expect(page('http://target/share/TOK_ABCDEFGHIJKLMNOP', 200)).toEqual([
      `GET a truncated or changed link of share ${SHARE} (http://target/share/TOK_ABCDEFGHIJKLMNOP): not 2xx / 200`,
    ]);
    expect(page(url, 200)).toEqual([]);
  });

  it('predicts a share asked for again with the views its link counted, not a fresh count', () => {
    const url = 'http://target/share/tok_abcdefghijklmnop';
    const oracle = shared(url);
    const opened = exchange('share page GET', 200, undefined, {
      url,
      key: null,
      bytes: Buffer.from('<p>3 cells</p>'),
    });
    expect(oracle.observe(opened)).toEqual([]);
    const again = (over: object) =>
      subjects(
        oracle,
        exchange('createShare', 200, { ...share(url), ...over }, { sent: { segmentation_id: SEGMENTATION } }),
      );
    const viewed = { view_count: 1, last_viewed_at: new Date().toISOString() };
    expect(again(viewed)).toEqual([]);
    expect(again({})).toEqual([
      'createShare again: view_count: 1 / 0',
      `createShare again: last_viewed_at: "at or after ${new Date(opened.sentAt).toISOString()}" / null`,
    ]);
  });

  it('counts every one of overlapping opens, observed in any order, and holds the share to all of them', () => {
    const url = 'http://target/share/tok_abcdefghijklmnop';
    const oracle = shared(url);
    const sentAt = Date.now();
    // four opens sent at once, answered (and so observed) last sent first
    for (const late of [30, 20, 10, 0])
      expect(
        oracle.observe(
          exchange('share page GET', 200, undefined, {
            url,
            key: null,
            sentAt: sentAt + late,
            receivedAt: sentAt + 100 - late,
            bytes: Buffer.from('<p>3 cells</p>'),
          }),
        ),
      ).toEqual([]);
    const read = (viewCount: number) =>
      subjects(
        oracle,
        exchange(
          'getShare',
          200,
          { ...share(url), view_count: viewCount, last_viewed_at: new Date(sentAt + 30).toISOString() },
          { params: { share_id: SHARE } },
        ),
      );
    expect(read(1)).toEqual(['getShare: view_count: 4 / 1']);
    expect(read(4)).toEqual([]);
  });

  it('finds no API key on the public page, as written or percent-encoded, in its body or headers', () => {
    const url = 'http://target/share/tok_abcdefghijklmnop';
    const page = (key: string, html: string, headers: Record<string, string> = {}) => {
      const oracle = shared(url);
      oracle.knowKeys({ odd: key });
      return oracle
        .observe(
          exchange('share page GET', 200, undefined, {
            url,
            key: null,
            headers: { 'content-type': 'text/html', ...headers },
            bytes: Buffer.from(`<p>3 cells</p>${html}`),
          }),
        )
        .map((f) => `${f.subject}: ${f.received}`);
    };
    const link = (key: string) => `<a href="/api/v1/export/x/rois.zip?api_key=${key}">ZIP</a>`;
    expect(page('sk_odd', link(KEY))).toEqual([
      `GET the share page of share ${SHARE}: a credential on the public page: the API key of organization main in its body: …href="/api/v1/export/x/rois.zip?api_key=<key>">ZIP</a>…`,
    ]);
    // a key with characters a URL escapes, sent escaped; and one in a cookie
    expect(page('sk+odd/1', link(encodeURIComponent('sk+odd/1')))[0]).toMatch(/organization odd in its body/);
    expect(page('sk_odd', '', { 'set-cookie': `k=${OTHER}` })[0]).toMatch(
      /organization other in its header set-cookie: …k=<key>…/,
    );
    expect(page('sk_odd', '<button data-download="rois.zip">ZIP</button>')).toEqual([]);
  });

  it("judges no answer to a second revoke but a 5xx (the interface does not show it; SHR-11's check judges the document's 200)", () => {
    const url = 'http://target/share/tok_abcdefghijklmnop';
    const oracle = shared(url);
    const revoke = (status: number, body: unknown) =>
      subjects(oracle, exchange('revokeShare', status, body, { params: { share_id: SHARE } }));
    expect(revoke(204, undefined)).toEqual([]);
    for (const [status, body] of [
      [204, undefined],
      [404, { detail: 'Share not found' }],
      [409, { detail: 'already revoked' }],
      [200, { ...share(url), revoked_at: new Date().toISOString() }],
    ] as const)
      expect(revoke(status, body), String(status)).toEqual([]);
  });
});

describe("the oracle's GeoJSON features", () => {
  it('predicts an array of one feature per cell, and finds a FeatureCollection whose features is not an array', () => {
    const oracle = withSegmentation();
    const geojson = (features: unknown) =>
      exchange(
        'exportRoisGeojson',
        200,
        { type: 'FeatureCollection', features },
        { params: { segmentation_id: SEGMENTATION } },
      );
    const feature = { type: 'Feature', geometry: null, properties: {} };
    expect(subjects(oracle, geojson([feature, feature, feature]))).toEqual([]);
    expect(subjects(oracle, geojson(null))).toEqual(['exportRoisGeojson: features: "an array of 3" / null']);
    expect(subjects(oracle, geojson(undefined))).toEqual([
      'exportRoisGeojson: features: "an array of 3" / nothing',
    ]);
  });
});
