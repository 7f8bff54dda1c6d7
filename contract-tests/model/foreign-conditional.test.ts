import { describe, expect, it } from 'vitest';
import { testExchange as exchange } from './exchange-fixture.js';
import { Oracle } from './oracle.js';

const IMAGE = '11111111-1111-4111-8111-111111111111';
const PREDICTION = '22222222-2222-4222-8222-222222222222';
const SEGMENTATION = '33333333-3333-4333-8333-333333333333';
const MODEL = '44444444-4444-4444-8444-444444444444';
const URL = `http://target/api/v1/export/${SEGMENTATION}/measurements.csv`;
const ETAG = '"abc123"';

describe("the oracle on another organization's conditional request", () => {
  it("predicts 404 for an export asked with the owner's ETag, and the owner's 304 left alone", () => {
    const oracle = new Oracle();
    oracle.knowKeys({ main: 'sk_main', other: 'sk_other' });
    const image = { id: IMAGE, name: 'cells.tif', size: 10, upload_status: 'ready', shape: [4, 4] };
    const done = { prediction_id: PREDICTION, status: 'COMPLETED', image_id: IMAGE, model_id: MODEL };
    for (const step of [
      exchange('listModels', 200, [{ id: MODEL, name: 'nuclei', kind: 'base' }]),
      exchange(
        'uploadImage',
        200,
        { image, upload: null },
        { sent: { file: { name: 'cells.tif', size: 10 } } },
      ),
      exchange(
        'createPrediction',
        200,
        { prediction_id: PREDICTION, status: 'submitted', reason: '' },
        { sent: { image_id: IMAGE, model_id: MODEL } },
      ),
      exchange(
        'getPrediction',
        200,
        { ...done, segmentation_id: SEGMENTATION, cell_count: 0 },
        { params: { prediction_id: PREDICTION } },
      ),
    ])
      expect(oracle.observe(step)).toEqual([]);
    const conditional = (key: string) =>
      oracle
        .observe(
          exchange('exportMeasurementsCsv', 304, '', {
            url: URL,
            key,
            params: { segmentation_id: SEGMENTATION },
            headers: { etag: ETAG },
            sentHeaders: { 'if-none-match': ETAG },
          }),
        )
        .map((f) => `${f.subject}: ${f.predicted} / ${f.received}`);
    expect(conditional('sk_other')).toEqual(['exportMeasurementsCsv status: 404 / 304']);
    expect(conditional('sk_main')).toEqual([]);
  });
});
