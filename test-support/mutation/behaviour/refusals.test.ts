import { describe, expect, it } from 'vitest';
import type { Answer, Exchange, ProxyState } from '../../sabotage-catalogue.js';
import type { MutantLog } from '../mutant.js';
import { refusalMutants } from './refusals.js';

/** The refusal mutants' proxy edits, on exchanges made up here: each lets through only its own refusal. */

const state = { target: 'http://mock', self: 'http://proxy', keys: { main: 'm', other: 'o' } } as ProxyState;
const ID = '11111111-1111-4111-8111-111111111111';
const SEG = '22222222-2222-4222-8222-222222222222';

const exchange = (method: string, path: string, body?: unknown): Exchange => ({
  method,
  path,
  headers: new Headers({ authorization: 'Bearer k' }),
  body: Buffer.from(body === undefined ? '' : JSON.stringify(body)),
});
const answer = (status: number, body: unknown = { detail: 'no' }): Answer => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(JSON.stringify(body)),
});

function caseOf(edit: string) {
  const mutant = refusalMutants().find((m) => m.id.endsWith(`:${edit}`))!;
  const log: MutantLog = { changed: 0 };
  const sabotage = mutant.build(log);
  return async (x: Exchange, a: Answer) => {
    await sabotage.request?.(x, state);
    await sabotage.response?.(x, a, state);
    return { x, a, log };
  };
}

describe('refusal mutants', () => {
  it('key-created answers the refused key creation 201 with a key', async () => {
    const { a } = await caseOf('key-created')(exchange('POST', '/api/v1/api-keys', {}), answer(403));
    expect(a.status).toBe(201);
    expect(JSON.parse(a.body.toString()).key).toMatch(/^sk_/);
  });

  it('server-field-taken strips only the server-controlled fields from a record creation', async () => {
    const pass = caseOf('server-field-taken');
    const { x } = await pass(exchange('POST', '/api/v1/image', { name: 'a', size: 1, id: ID }), answer(200));
    expect(JSON.parse(x.body.toString())).toEqual({ name: 'a', size: 1 });
    const plain = await pass(exchange('POST', '/api/v1/image', { name: 'a', size: 1 }), answer(200));
    expect(plain.log.changed).toBe(1);
  });

  it('predict-not-ready acknowledges a state refusal, never a validation one', async () => {
    const pass = caseOf('predict-not-ready');
    const invalid = await pass(
      exchange('POST', '/api/v1/predict', { image_id: 'nope', model_id: ID }),
      answer(422),
    );
    expect(invalid.a.status).toBe(422);
    const state = await pass(
      exchange('POST', '/api/v1/predict', { image_id: ID, model_id: ID }),
      answer(422),
    );
    expect(state.a.status).toBe(200);
    expect(JSON.parse(state.a.body.toString()).status).toBe('submitted');
  });

  it('unknown-segmentation-exports-empty answers an empty file for an id no poll named, a 404 for one it did', async () => {
    const pass = caseOf('unknown-segmentation-exports-empty');
    await pass(
      exchange('GET', `/api/v1/predict/${ID}`),
      answer(200, { prediction_id: ID, status: 'COMPLETED', segmentation_id: SEG }),
    );
    const known = await pass(exchange('GET', `/api/v1/export/${SEG}/rois.zip`), answer(404));
    expect(known.a.status).toBe(404);
    const unknown = await pass(exchange('GET', `/api/v1/export/${ID}/measurements.csv`), answer(404));
    expect(unknown.a.status).toBe(200);
    expect(unknown.a.headers['content-type']).toMatch(/^text\/csv/);
  });

  it('unknown-route-html and 402-explains-nothing change the error body, not the status', async () => {
    const html = await caseOf('unknown-route-html')(
      exchange('GET', '/api/v1/this-route-does-not-exist'),
      answer(404),
    );
    expect([html.a.status, html.a.headers['content-type']]).toEqual([404, 'text/html']);
    const quota = await caseOf('402-explains-nothing')(
      exchange('POST', '/api/v1/predict', { image_id: ID, model_id: ID }),
      answer(402, { detail: 'Monthly analysis cap reached' }),
    );
    expect([quota.a.status, JSON.parse(quota.a.body.toString()).detail]).toEqual([402, 'Payment Required']);
  });
});
