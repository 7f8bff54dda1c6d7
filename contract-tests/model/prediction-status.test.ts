import { describe, expect, it } from 'vitest';
import type { Exchange } from './exchange.js';
import { Oracle } from './oracle.js';
import { testExchange } from './exchange-fixture.js';

/** The oracle's rule that a prediction's status moves forward only (the document's PredictionStatus). */
const KEY = 'sk_main';
const IMAGE = '11111111-1111-4111-8111-111111111111';
const PREDICTION = '2222abcd-2222-4222-8222-22222222beef';
const MODEL = '44444444-4444-4444-8444-444444444444';

/** An oracle that has seen a ready image predicted, the prediction just submitted. */
function submitted(): Oracle {
  const oracle = new Oracle();
  oracle.knowKeys({ main: KEY });
  const image = { id: IMAGE, name: 'c.tif', size: 10, upload_status: 'ready', shape: [4, 4] };
  const steps = [
    testExchange(
      'uploadImage',
      200,
      { image, upload: null },
      { sent: { file: { name: 'c.tif', size: 10 } } },
    ),
    testExchange(
      'createPrediction',
      200,
      { prediction_id: PREDICTION, status: 'submitted' },
      { sent: { image_id: IMAGE, model_id: MODEL } },
    ),
  ];
  for (const step of steps) expect(oracle.observe(step)).toEqual([]);
  return oracle;
}

/** A poll sent at `sentAt` and answered at `receivedAt`, reading `status`. */
const poll = (status: string, sentAt: number, receivedAt: number): Exchange =>
  testExchange(
    'getPrediction',
    200,
    { prediction_id: PREDICTION, status, image_id: IMAGE, model_id: MODEL },
    { params: { prediction_id: PREDICTION }, sentAt, receivedAt },
  );

const filed = (oracle: Oracle, x: Exchange) => oracle.observe(x).map((f) => `${f.clause}: ${f.received}`);

describe("the oracle's prediction status order", () => {
  it('passes SUBMITTED, then STARTED, and a status skipped', () => {
    const oracle = submitted();
    for (const [i, status] of ['SUBMITTED', 'SUBMITTED', 'STARTED', 'STARTED'].entries())
      expect(filed(oracle, poll(status, i * 10, i * 10 + 5))).toEqual([]);
    const skipping = submitted();
    expect(filed(skipping, poll('SUBMITTED', 0, 5))).toEqual([]);
    expect(filed(skipping, poll('FAILED', 10, 15))).toEqual([]);
  });

  it('files SUBMITTED after a poll read STARTED under PRED-08 alone, every time', () => {
    const oracle = submitted();
    expect(filed(oracle, poll('STARTED', 0, 5))).toEqual([]);
    expect(filed(oracle, poll('SUBMITTED', 10, 15))).toEqual(['PRED-08: "SUBMITTED"']);
    expect(filed(oracle, poll('SUBMITTED', 20, 25))).toEqual(['PRED-08: "SUBMITTED"']);
  });

  it('passes SUBMITTED on a poll sent before the answer that read STARTED came', () => {
    const oracle = submitted();
    expect(filed(oracle, poll('STARTED', 0, 10))).toEqual([]);
    expect(filed(oracle, poll('SUBMITTED', 5, 12))).toEqual([]);
    expect(filed(oracle, poll('SUBMITTED', 10, 20))).toEqual([]);
    expect(filed(oracle, poll('SUBMITTED', 11, 20))).toEqual(['PRED-08: "SUBMITTED"']);
  });
});

describe("the oracle's prediction read of its own id", () => {
  it('passes the lower-case id answered to a path written in upper case, and finds the id as written', () => {
    const oracle = submitted();
    const read = (answered: string) =>
      testExchange(
        'getPrediction',
        200,
        { prediction_id: answered, status: 'SUBMITTED', image_id: IMAGE, model_id: MODEL },
        { params: { prediction_id: PREDICTION.toUpperCase() } },
      );
    expect(oracle.observe(read(PREDICTION))).toEqual([]);
    expect(oracle.observe(read(PREDICTION.toUpperCase())).map((f) => f.subject)).toEqual([
      'getPrediction: prediction_id',
    ]);
  });
});
