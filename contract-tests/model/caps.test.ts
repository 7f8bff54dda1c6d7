import { describe, expect, it } from 'vitest';
import type { Exchange } from './exchange.js';
import { organizationMade, testExchange as exchange } from './exchange-fixture.js';
import { Oracle } from './oracle.js';

const KEY = 'sk_capped';
const ORG = '66666666-6666-4666-8666-666666666666';
const MODEL = '44444444-4444-4444-8444-444444444444';
const IMAGES = [
  '11111111-1111-4111-8111-111111111111',
  '11111111-1111-4111-8111-111111111112',
  '11111111-1111-4111-8111-111111111113',
];

const subjects = (oracle: Oracle, x: Exchange) =>
  oracle.observe(x).map((f) => `${f.subject}: ${f.predicted} / ${f.received}`);

/** An oracle following a throw-away organization made with these caps (its key KEY). */
function capped(storage: number, analyses: number): Oracle {
  const oracle = new Oracle();
  oracle.observe(
    organizationMade(ORG, KEY, { plan: { storage_cap_images: storage, monthly_analysis_cap: analyses } }),
  );
  return oracle;
}

const uploaded = (id: string, status = 200) =>
  exchange(
    'uploadImage',
    status,
    status === 200
      ? { image: { id, name: 'a.tif', size: 1, upload_status: 'ready', shape: [1] }, upload: null }
      : { detail: 'Storage cap reached' },
    { key: KEY, method: 'POST', sent: { file: { name: 'a.tif', size: 1 } } },
  );

describe('the caps, exactly, in a throw-away organization', () => {
  it('counts no slot for a creation refused as invalid', () => {
    const oracle = capped(1, 5);
    const invalid = exchange(
      'createImage',
      422,
      { detail: [{ loc: ['body', 'image_type'], msg: 'TIFF only', type: 'enum' }] },
      { key: KEY, method: 'POST', sent: { name: 'a.tif', size: 1, image_type: 'PNG' } },
    );
    expect(subjects(oracle, invalid)).toEqual([]);
    // the one slot is still free: a 402 now is a slot the refusal took
    expect(subjects(oracle, uploaded(IMAGES[0], 402))).toEqual([
      'uploadImage status: 200 or 400 or 413 or 415 or 422 / 402',
    ]);
    expect(subjects(oracle, uploaded(IMAGES[0]))).toEqual([]);
    expect(subjects(oracle, uploaded(IMAGES[1]))).toEqual(['uploadImage status: 402 / 200']);
  });

  it('takes predictions sent at once in any answer order, never more of them than the analyses left', () => {
    const burst = (statuses: number[]): string[] => {
      const oracle = capped(3, 2);
      oracle.observe(exchange('listModels', 200, [{ id: MODEL, name: 'm', kind: 'base' }], { key: KEY }));
      IMAGES.forEach((id) => oracle.observe(uploaded(id)));
      // all three on their way before the first answer comes
      const answered = IMAGES.map(() => oracle.sending(KEY));
      return statuses.flatMap((status, i) => {
        answered[i]();
        const body =
          status === 200
            ? { prediction_id: `22222222-2222-4222-8222-22222222222${i}`, status: 'submitted', reason: '' }
            : { detail: 'Monthly analysis cap reached' };
        return subjects(
          oracle,
          exchange('createPrediction', status, body, {
            key: KEY,
            method: 'POST',
            sent: { image_id: IMAGES[i], model_id: MODEL },
          }),
        );
      });
    };
    // the refused one may answer first: the two still on their way may have taken the analyses
    expect(burst([402, 200, 200])).toEqual([]);
    expect(burst([200, 402, 200])).toEqual([]);
    expect(burst([200, 200, 402])).toEqual([]);
    expect(burst([200, 200, 200])).toEqual(['createPrediction status: 402 / 200']);
    // with nothing else on its way, the cap has analyses left: a 402 is wrong
    expect(burst([200, 402, 402]).slice(-1)).toEqual(['createPrediction status: 200 / 402']);
  });

  it("holds a 402's detail to the organization's own cap and count, not another plan's", () => {
    const refused = (detail: string) =>
      exchange(
        'uploadImage',
        402,
        { detail },
        { key: KEY, method: 'POST', sent: { file: { name: 'a.tif', size: 1 } } },
      );
    const oracle = capped(2, 5);
    IMAGES.slice(0, 2).forEach((id) => oracle.observe(uploaded(id)));
    expect(subjects(oracle, refused('the trial plan allows 2 images and 2 are stored'))).toEqual([]);
    expect(subjects(oracle, refused('Storage full: 2 images of 2'))).toEqual([]);
    // what is left, and the one image refused, are honest counts too
    expect(subjects(oracle, refused('0 images left on the plan'))).toEqual([]);
    expect(subjects(oracle, refused('uploading 1 image would pass the cap of 2'))).toEqual([]);
    expect(subjects(oracle, refused('the starter plan allows 50 images and 2 are stored'))).toEqual([
      'uploadImage 402 detail: 50 images: the storage cap of 2, or the 2 used / "the starter plan allows 50 images and 2 are stored"',
    ]);
    // an organization whose counters the model does not follow: no count is known to hold it to
    const seeded = new Oracle();
    seeded.knowKeys({ main: KEY });
    expect(subjects(seeded, refused('the starter plan allows 50 images and 2 are stored'))).toEqual([]);
  });

  it("holds a predict 402's count of analyses to the organization's cap", () => {
    const oracle = capped(3, 1);
    oracle.observe(exchange('listModels', 200, [{ id: MODEL, name: 'm', kind: 'base' }], { key: KEY }));
    const predict = (status: number, body: object, image: string) =>
      subjects(
        oracle,
        exchange('createPrediction', status, body, {
          key: KEY,
          method: 'POST',
          sent: { image_id: image, model_id: MODEL },
        }),
      );
    IMAGES.slice(0, 2).forEach((id) => oracle.observe(uploaded(id)));
    const ack = { prediction_id: '22222222-2222-4222-8222-222222222220', status: 'submitted', reason: '' };
    expect(predict(200, ack, IMAGES[0])).toEqual([]);
    expect(predict(402, { detail: 'the plan allows 1 analysis a month; 1 used' }, IMAGES[1])).toEqual([]);
    expect(predict(402, { detail: '0 analyses left this month' }, IMAGES[1])).toEqual([]);
    expect(predict(402, { detail: 'the plan allows 100 analyses a month' }, IMAGES[1])).toEqual([
      'createPrediction 402 detail: 100 analyses: the monthly analysis cap of 1, or the 1 used / "the plan allows 100 analyses a month"',
    ]);
  });
});
