import { describe, expect, it } from 'vitest';
import type { Exchange } from './exchange.js';
import { organizationMade, testExchange as exchange } from './exchange-fixture.js';
import { Oracle } from './oracle.js';

const MAIN = 'sk_main';
const FIRST = 'sk_first_key_of_the_org';
const SECOND = 'sk_second_key_of_the_org';
const ORG = '66666666-6666-4666-8666-666666666666';
const IMAGE = '11111111-1111-4111-8111-111111111111';
const BASE = { id: '44444444-4444-4444-8444-444444444444', name: 'nuclei', kind: 'base' };
const OTHER_BASE = { id: '77777777-7777-4777-8777-777777777777', name: 'cells', kind: 'base' };
const CUSTOM = { id: '55555555-5555-4555-8555-555555555555', name: 'mine', kind: 'custom' };
const admin = { key: 'admin', method: 'POST' };

const subjects = (oracle: Oracle, x: Exchange) =>
  oracle.observe(x).map((f) => `${f.subject}: ${f.predicted} / ${f.received}`);

/** An organization made through the control plane with a custom model, as the oracle saw it made. */
function organizationWithCustomModel(custom = CUSTOM): Oracle {
  const oracle = new Oracle();
  oracle.knowKeys({ main: MAIN });
  for (const step of [
    organizationMade(ORG, FIRST, { name: 'keys' }),
    exchange('mockCreateModel', 200, custom, {
      ...admin,
      url: `http://target/__mock/organizations/${ORG}/models`,
    }),
  ])
    expect(oracle.observe(step)).toEqual([]);
  return oracle;
}

/** The control plane's answer adding SECOND to the organization ORG. */
const keyAdded = exchange(
  'mockCreateApiKey',
  200,
  { api_key: SECOND, id: 'key_0123456789abcdef', prefix: 'sk_second' },
  { ...admin, url: `http://target/__mock/organizations/${ORG}/keys` },
);

describe('the oracle on the keys of one organization and the models it lists', () => {
  it("takes a key added to an organization as that organization's: its images and custom models alike", () => {
    const oracle = organizationWithCustomModel();
    expect(oracle.observe(keyAdded)).toEqual([]);
    // the second key's list without the organization's custom model
    expect(subjects(oracle, exchange('listModels', 200, [BASE], { key: SECOND }))).toEqual([
      `listModels: custom model ${CUSTOM.id}: ${JSON.stringify(CUSTOM)} / null`,
      `listModels: the custom models: ["${CUSTOM.id}"] / []`,
    ]);
    expect(subjects(oracle, exchange('listModels', 200, [BASE, CUSTOM], { key: SECOND }))).toEqual([]);
    const image = { id: IMAGE, name: 'a.tif', size: 1, upload_status: 'ready', shape: [1, 1] };
    const uploaded = exchange(
      'uploadImage',
      200,
      { image, upload: null },
      { key: FIRST, sent: { file: { name: 'a.tif', size: 1 } } },
    );
    expect(oracle.observe(uploaded)).toEqual([]);
    // the image the first key made, read with the second: found
    const read = (status: number, body: unknown) =>
      subjects(oracle, exchange('getImage', status, body, { key: SECOND, params: { image_id: IMAGE } }));
    expect(read(404, { detail: 'Image not found' })).toEqual(['getImage status: 200 / 404']);
    expect(read(200, image)).toEqual([]);
  });

  it('takes a revoked key as invalid from then on, and the other keys of its organization as still valid', () => {
    const oracle = new Oracle();
    const made = organizationMade(ORG, FIRST, { name: 'rotation' });
    // the control plane lists the first key by its id and prefix beside the key in clear
    made.body = { ...(made.body as object), keys: [{ id: 'key_00000000000000aa', prefix: 'sk_first' }] };
    expect(oracle.observe(made)).toEqual([]);
    expect(oracle.observe(keyAdded)).toEqual([]);
    const revoke = (keyId: string) =>
      oracle.observe(
        exchange(
          'mockRevokeApiKey',
          200,
          { id: ORG },
          {
            key: 'admin',
            method: 'DELETE',
            url: `http://target/__mock/organizations/${ORG}/keys/${keyId}`,
          },
        ),
      );
    const list = (key: string, status: number) =>
      subjects(oracle, exchange('listModels', status, [], { key }));
    expect(revoke('key_00000000000000aa')).toEqual([]);
    expect(list(FIRST, 200)).toEqual(['listModels status: 401 / 200']);
    expect(list(FIRST, 401)).toEqual([]);
    expect(list(SECOND, 200)).toEqual([]);
    const refused = oracle.observe(
      exchange('listModels', 401, { detail: 'Invalid API key' }, { key: SECOND }),
    );
    expect(refused.map((f) => `${f.subject}: ${f.predicted} / ${f.received}`)).toEqual([
      'listModels status: not 401 / 401',
    ]);
    expect(refused[0].sentence).toMatch(/revokes that key alone/);
    // the second key revoked too, by the id its creation answered
    expect(revoke('key_0123456789abcdef')).toEqual([]);
    expect(list(SECOND, 200)).toEqual(['listModels status: 401 / 200']);
  });

  it('puts an organization out of reach when a key it cannot name is revoked', () => {
    const oracle = organizationWithCustomModel();
    oracle.observe(
      exchange(
        'mockRevokeApiKey',
        200,
        { id: ORG },
        {
          key: 'admin',
          method: 'DELETE',
          url: `http://target/__mock/organizations/${ORG}/keys/key_ffffffffffffffff`,
        },
      ),
    );
    expect(subjects(oracle, exchange('listModels', 200, [BASE], { key: FIRST }))).toEqual([]);
    expect(
      subjects(oracle, exchange('listModels', 401, { detail: 'Invalid API key' }, { key: FIRST })),
    ).toEqual([]);
  });

  it("holds a custom model named as a base model beside that base model, as another organization's list has it", () => {
    const shadowing = { ...CUSTOM, name: BASE.name };
    const oracle = organizationWithCustomModel(shadowing);
    expect(subjects(oracle, exchange('listModels', 200, [BASE, OTHER_BASE]))).toEqual([]);
    const list = (models: unknown[]) => subjects(oracle, exchange('listModels', 200, models, { key: FIRST }));
    expect(list([BASE, OTHER_BASE, shadowing])).toEqual([]);
    expect(list([OTHER_BASE, shadowing]).at(-1)).toBe(
      `listModels: base models, against organization main's: ${JSON.stringify([BASE.id, OTHER_BASE.id].sort())} / ${JSON.stringify([OTHER_BASE.id])}`,
    );
  });

  it("predicts a repeat of the organization's prediction held in flight skipped with its id, sent with another key of it or its ids in upper case", () => {
    const oracle = organizationWithCustomModel();
    expect(oracle.observe(keyAdded)).toEqual([]);
    const progress = { organization_id: ORG, start_delay_ms: 0, run_delay_ms: 0, complete_after_polls: 1 };
    const held = exchange('mockSetProgress', 200, progress, {
      ...admin,
      method: 'PUT',
      url: 'http://target/__mock/predictions/progress',
    });
    expect(oracle.observe(held)).toEqual([]);
    expect(subjects(oracle, exchange('listModels', 200, [BASE, CUSTOM], { key: FIRST }))).toEqual([]);
    const image = { id: IMAGE, name: 'a.tif', size: 1, upload_status: 'ready', shape: [1, 1] };
    const sent = { file: { name: 'a.tif', size: 1 } };
    expect(
      oracle.observe(exchange('uploadImage', 200, { image, upload: null }, { key: FIRST, sent })),
    ).toEqual([]);
    const RUN = '88888888-8888-4888-8888-888888888888';
    const OTHER_RUN = '99999999-9999-4999-8999-999999999999';
    const predict = (key: string, ids: { image_id: string; model_id: string }, ack: unknown) =>
      subjects(oracle, exchange('createPrediction', 200, ack, { key, method: 'POST', sent: ids }));
    const ids = { image_id: IMAGE, model_id: BASE.id };
    const upper = { image_id: IMAGE.toUpperCase(), model_id: BASE.id.toUpperCase() };
    expect(predict(FIRST, ids, { prediction_id: RUN, status: 'submitted' })).toEqual([]);
    expect(predict(SECOND, ids, { prediction_id: RUN, status: 'skipped' })).toEqual([]);
    expect(predict(FIRST, upper, { prediction_id: RUN, status: 'skipped' })).toEqual([]);
    const secondRun = [
      'createPrediction (an identical prediction held in flight): status: "skipped" / "submitted"',
      `createPrediction (an identical prediction held in flight): prediction_id: "${RUN}" / "${OTHER_RUN}"`,
    ];
    expect(predict(SECOND, ids, { prediction_id: OTHER_RUN, status: 'submitted' })).toEqual(secondRun);
    expect(predict(FIRST, upper, { prediction_id: OTHER_RUN, status: 'submitted' })).toEqual(secondRun);
  });

  it('leaves an organization it does not follow when a key is added to it', () => {
    const oracle = new Oracle();
    oracle.knowKeys({ main: MAIN });
    expect(oracle.observe(keyAdded)).toEqual([]);
    // not taken as any organization's: its answers are not judged
    expect(
      subjects(
        oracle,
        exchange('getImage', 404, { detail: 'x' }, { key: SECOND, params: { image_id: IMAGE } }),
      ),
    ).toEqual([]);
  });
});
