import { describe, expect, it } from 'vitest';
import { testExchange as exchange } from './exchange-fixture.js';
import { Oracle } from './oracle.js';
import { possibleOrders } from './overlap.js';

const KEY = 'sk_main';
const IMAGE = '11111111-1111-4111-8111-111111111111';

/** An oracle that has seen a ready image of the main organization. */
function withImage(): Oracle {
  const oracle = new Oracle();
  oracle.knowKeys({ main: KEY });
  const image = { id: IMAGE, name: 'cells.tif', size: 10, upload_status: 'ready', shape: [4, 4] };
  expect(
    oracle.observe(
      exchange(
        'uploadImage',
        200,
        { image, success: true, upload: null },
        { sent: { file: { name: 'cells.tif', size: 10 } } },
      ),
    ),
  ).toEqual([]);
  return oracle;
}

const at = (sentAt: number, receivedAt: number) => ({ sentAt, receivedAt, params: { image_id: IMAGE } });
const deleted = (sentAt: number, receivedAt: number) =>
  exchange('deleteImage', 200, { success: true }, { method: 'DELETE', ...at(sentAt, receivedAt) });
const read = (sentAt: number, receivedAt: number) =>
  exchange(
    'getUpload',
    200,
    { id: IMAGE, name: 'cells.tif', size: 10, upload_status: 'ready', shape: [4, 4] },
    at(sentAt, receivedAt),
  );

describe('requests sent at once', () => {
  it('a read answered after a delete it overlapped may have been taken first', () => {
    const oracle = withImage();
    oracle.hold();
    oracle.observe(deleted(100, 110));
    oracle.observe(read(100, 120));
    expect(oracle.release()).toEqual([]);
    // the order that explained them is the state kept: the image is gone
    expect(oracle.observe(read(200, 210)).map((f) => f.predicted)).toEqual(['404']);
  });

  it('a read sent after the delete was answered is judged after it', () => {
    const oracle = withImage();
    oracle.hold();
    oracle.observe(deleted(100, 110));
    oracle.observe(read(115, 120));
    expect(oracle.release().map((f) => `${f.subject}: ${f.predicted}`)).toEqual(['getUpload status: 404']);
  });

  it('two deletes at once: one removes the image, the other finds none', () => {
    const oracle = withImage();
    oracle.hold();
    oracle.observe(
      exchange('deleteImage', 404, { detail: 'not found' }, { method: 'DELETE', ...at(100, 105) }),
    );
    oracle.observe(deleted(100, 110));
    expect(oracle.release()).toEqual([]);
  });

  it('two deletes at once that both answer removed are explained by no order', () => {
    const oracle = withImage();
    oracle.hold();
    oracle.observe(deleted(100, 105));
    oracle.observe(deleted(100, 110));
    expect(oracle.release().map((f) => f.predicted)).toEqual(['404']);
  });

  it("a request still in flight while the world is put back counts off the organization's pending", () => {
    const oracle = withImage();
    const answered = oracle.sending(KEY);
    oracle.hold();
    oracle.observe(deleted(100, 105));
    oracle.observe(deleted(100, 110));
    oracle.release(); // no order explains both: the world is put back from a copy between tries
    answered();
    expect([...oracle.world.organizations.values()].map((org) => org.pending)).toEqual([0]);
  });

  it('orders keep a request answered before another was sent ahead of it', () => {
    const [a, b, c] = [read(0, 10), read(5, 20), read(15, 30)];
    expect(possibleOrders([c, b, a]).map((o) => o.map((x) => [a, b, c].indexOf(x)).join(''))).toEqual([
      '012',
      '021',
      '102',
    ]);
  });
});
