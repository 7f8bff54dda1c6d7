import { describe, expect, it } from 'vitest';
import {
  organizationMade,
  SEGMENTED,
  segmentedOracle,
  testExchange as exchange,
} from './exchange-fixture.js';
import { Oracle } from './oracle.js';

const ORG = '66666666-6666-4666-8666-666666666666';
const NOBODY = '77777777-7777-4777-8777-777777777777';

/** An oracle that saw an organization made with a plan (key sk_made), or knows only a target's key. */
function oracleOf(made: boolean): Oracle {
  const oracle = new Oracle();
  oracle.knowKeys({ main: 'sk_main' });
  if (made)
    oracle.observe(
      organizationMade(ORG, 'sk_made', { plan: { storage_cap_images: 3, monthly_analysis_cap: 3 } }),
    );
  return oracle;
}

const asked = (
  oracle: Oracle,
  key: string,
  operationId: string,
  params: Record<string, string>,
  status: number,
  url?: string,
) =>
  oracle
    .observe(
      exchange(operationId, status, status === 200 ? { id: NOBODY } : { detail: 'x' }, {
        key,
        params,
        ...(url ? { url } : {}),
      }),
    )
    .map((f) => `${f.subject}: ${f.predicted} / ${f.received}`);

describe('an id no answer handed out', () => {
  it("is nobody's in an organization made here: not found", () => {
    const oracle = oracleOf(true);
    expect(asked(oracle, 'sk_made', 'getUpload', { image_id: NOBODY }, 404)).toEqual([]);
    expect(asked(oracle, 'sk_made', 'getShare', { share_id: NOBODY }, 200)).toEqual([
      'getShare status: 404 / 200',
    ]);
    expect(asked(oracle, 'sk_made', 'getPrediction', { prediction_id: NOBODY }, 422)).toEqual([
      'getPrediction status: 404 / 422',
    ]);
  });

  it('may be refused for options the document refuses, on an export', () => {
    const url = `http://target/api/v1/export/${NOBODY}/overlay.png?max_size=8`;
    expect(
      asked(oracleOf(true), 'sk_made', 'exportOverlayPng', { segmentation_id: NOBODY }, 422, url),
    ).toEqual([]);
  });

  it("is not judged in a target's own organization: another client may have made it", () => {
    expect(asked(oracleOf(false), 'sk_main', 'getShare', { share_id: NOBODY }, 200)).toEqual([]);
  });
});

describe('an id handed out for a resource of another kind', () => {
  const { image, prediction, segmentation } = SEGMENTED;
  const read = (operationId: string, params: Record<string, string>, status: number, key = 'sk_main') =>
    segmentedOracleAsked(operationId, params, status, key);

  it("names nothing of the route's kind, in a target's own organization too: not found", () => {
    // the segmentation's id read as a prediction's: 200 with the prediction that made it is a finding
    expect(read('getPrediction', { prediction_id: segmentation }, 200)).toEqual([
      'getPrediction status: 404 / 200',
    ]);
    expect(read('getPrediction', { prediction_id: segmentation }, 404)).toEqual([]);
    expect(read('getPrediction', { prediction_id: image }, 200)).toEqual(['getPrediction status: 404 / 200']);
    expect(read('exportRoisGeojson', { segmentation_id: prediction }, 200)).toEqual([
      'exportRoisGeojson status: 404 / 200',
    ]);
    expect(read('getUpload', { image_id: segmentation }, 200)).toEqual(['getUpload status: 404 / 200']);
    expect(read('getShare', { share_id: image }, 404)).toEqual([]);
    // another organization asking: still nothing of the kind, so 404 as well
    expect(read('getPrediction', { prediction_id: segmentation }, 200, 'sk_other')).toEqual([
      'getPrediction status: 404 / 200',
    ]);
  });

  it('may be refused for options the document refuses, on an export', () => {
    const url = `http://target/api/v1/export/${prediction}/overlay.png?max_size=8`;
    const oracle = segmentedOracle();
    const answer = exchange(
      'exportOverlayPng',
      422,
      { detail: 'x' },
      {
        key: 'sk_main',
        params: { segmentation_id: prediction },
        url,
      },
    );
    expect(oracle.observe(answer)).toEqual([]);
  });
});

function segmentedOracleAsked(
  operationId: string,
  params: Record<string, string>,
  status: number,
  key: string,
) {
  return segmentedOracle()
    .observe(
      exchange(operationId, status, status === 200 ? { id: NOBODY } : { detail: 'x' }, { key, params }),
    )
    .map((f) => `${f.subject}: ${f.predicted} / ${f.received}`);
}

describe('a body id handed out for a resource of another kind', () => {
  const { image, prediction, model } = SEGMENTED;
  it('names no image to predict and no segmentation to share: not found', () => {
    const sent = (operationId: string, body: unknown, status: number) =>
      segmentedOracle()
        .observe(
          exchange(operationId, status, { detail: 'x' }, { key: 'sk_main', method: 'POST', sent: body }),
        )
        .map((f) => `${f.subject}: ${f.predicted} / ${f.received}`);
    expect(sent('createPrediction', { image_id: prediction, model_id: model }, 422)).toEqual([
      'createPrediction status: 404 or 402 / 422',
    ]);
    expect(sent('createPrediction', { image_id: prediction, model_id: model }, 404)).toEqual([]);
    expect(sent('createShare', { segmentation_id: image }, 200)).toEqual(['createShare status: 404 / 200']);
    expect(sent('createShare', { segmentation_id: image }, 404)).toEqual([]);
  });
});
