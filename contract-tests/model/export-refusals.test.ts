import { describe, expect, it } from 'vitest';
import { testExchange as exchange } from './exchange-fixture.js';
import { Oracle } from './oracle.js';

const IMAGE = '11111111-1111-4111-8111-111111111111';
const PREDICTION = '22222222-2222-4222-8222-222222222222';
const SEGMENTATION = '33333333-3333-4333-8333-333333333333';
const MODEL = '44444444-4444-4444-8444-444444444444';

/** An oracle that saw the main organization's image segmented. */
function segmented(): Oracle {
  const oracle = new Oracle();
  oracle.knowKeys({ main: 'sk_main', other: 'sk_other' });
  const image = { id: IMAGE, name: 'cells.tif', size: 10, upload_status: 'ready', shape: [4, 4] };
  const done = { prediction_id: PREDICTION, status: 'COMPLETED', image_id: IMAGE, model_id: MODEL };
  const steps = [
    exchange('listModels', 200, [{ id: MODEL, name: 'nuclei', kind: 'base' }]),
    exchange(
      'uploadImage',
      200,
      { image, success: true, upload: null },
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
      { ...done, segmentation_id: SEGMENTATION, cell_count: 3 },
      { params: { prediction_id: PREDICTION } },
    ),
  ];
  for (const step of steps) expect(oracle.observe(step)).toEqual([]);
  return oracle;
}

const asked = (oracle: Oracle, operationId: string, query: string, status: number) =>
  oracle
    .observe(
      exchange(
        operationId,
        status,
        { detail: 'no' },
        {
          key: 'sk_other',
          url: `http://target/api/v1/export/${SEGMENTATION}/x?${query}`,
          params: { segmentation_id: SEGMENTATION },
        },
      ),
    )
    .map((f) => `${f.subject}: ${f.predicted} / ${f.received}`);

describe("another organization's segmentation asked with options the document refuses", () => {
  it('may be refused for its options before it is looked up', () => {
    expect(asked(segmented(), 'exportOverlayPng', 'outline_color=FFF', 422)).toEqual([]);
    expect(asked(segmented(), 'exportMeasurementsCsv', 'columns=nope', 422)).toEqual([]);
    expect(asked(segmented(), 'exportOverlayPng', 'outline_color=FFF', 404)).toEqual([]);
  });

  it('is not found, not refused, with options the document takes', () => {
    expect(asked(segmented(), 'exportOverlayPng', 'outline_color=FFFFFF', 422)).toEqual([
      'exportOverlayPng status: 404 / 422',
    ]);
  });
});
