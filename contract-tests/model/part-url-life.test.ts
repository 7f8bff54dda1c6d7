import { describe, expect, it } from 'vitest';
import { testExchange as exchange } from './exchange-fixture.js';
import { Oracle } from './oracle.js';

const IMAGE = '11111111-1111-4111-8111-111111111111';
const URL = 'http://store/uploads/u/parts/1?expires=1&signature=s';
const EXPIRED = '<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>';

/** An oracle that saw a plan of one part asked for at `at` (the client's clock), no clock known. */
function planned(at: number): Oracle {
  const oracle = new Oracle();
  oracle.knowKeys({ main: 'sk_main' });
  const plan = { part_size: 10, upload_id: 'u', urls: [{ part_number: 1, url: URL }] };
  const image = { id: IMAGE, name: 'r.tif', size: 8, upload_status: 'uploading' };
  oracle.observe(
    exchange(
      'uploadImage',
      200,
      { image, success: true, upload: plan },
      { method: 'POST', sent: { name: 'r.tif', size: 8 }, sentAt: at, receivedAt: at + 50 },
    ),
  );
  return oracle;
}

const put = (oracle: Oracle, answeredAt: number, status: number, text: string) =>
  oracle
    .observe(
      exchange('presigned part PUT', status, undefined, {
        method: 'PUT',
        url: URL,
        key: null,
        sentAt: answeredAt - 20,
        receivedAt: answeredAt,
        bytes: Buffer.from(text),
      }),
    )
    .map((f) => `${f.subject}: ${f.predicted} / ${f.received}`);

describe("a part URL's life, where the target's clock is unknown", () => {
  const at = Date.now();

  it('holds a PUT answered seconds after its plan was asked for to the URL still living', () => {
    expect(put(planned(at), at + 5000, 200, '')).toEqual([]);
    expect(put(planned(at), at + 5000, 403, EXPIRED)).toEqual([
      `PUT a part URL of image ${IMAGE}, answered 5.0 s after its plan was asked for: taken: the URL still lives / 403 AccessDenied`,
    ]);
    // within the life less the second it is counted from, and no later
    expect(put(planned(at), at + 86_399_000, 403, EXPIRED)).toHaveLength(1);
    expect(put(planned(at), at + 86_399_001, 403, EXPIRED)).toEqual([]);
  });

  it('predicts nothing once a clock was moved after the plan was asked for', () => {
    const oracle = planned(at);
    oracle.observe(
      exchange(
        'mockOrgSetClock',
        200,
        { offset_ms: 86_400_000 },
        { method: 'POST', url: 'http://target/api/v1/__mock/org/clock' },
      ),
    );
    expect(put(oracle, at + 5000, 403, EXPIRED)).toEqual([]);
  });
});
