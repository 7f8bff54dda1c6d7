import { describe, expect, it } from 'vitest';
import type { Answer, Exchange, ProxyState } from '../../sabotage-catalogue.js';
import type { MutantLog } from '../mutant.js';
import { behaviourMutants } from './index.js';

/** The proxy edits of some behaviour mutants, on exchanges made up here (no mock needed). */

const state = {
  target: 'http://mock',
  self: 'http://proxy',
  keys: { main: 'main', other: 'other' },
} as ProxyState;
const exchange = (method: string, path: string, key = 'k1', body: unknown = undefined): Exchange => ({
  method,
  path,
  headers: new Headers({ authorization: `Bearer ${key}` }),
  body: Buffer.from(body === undefined ? '' : JSON.stringify(body)),
});
const answer = (status: number, body: unknown, type = 'application/json'): Answer => ({
  status,
  headers: { 'content-type': type },
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
});
const json = (a: Answer) => JSON.parse(a.body.toString('utf8')) as Record<string, unknown>;

function caseOf(id: string) {
  const mutant = behaviourMutants().find((m) => m.id === id)!;
  const log: MutantLog = { changed: 0 };
  const sabotage = mutant.build(log);
  const pass = async (x: Exchange, a: Answer) => {
    await sabotage.request?.(x, state);
    await sabotage.response?.(x, a, state);
    return a;
  };
  return { pass, log, mutant };
}

const SHARE = '11111111-1111-4111-8111-111111111111';
const SEG = '22222222-2222-4222-8222-222222222222';
const IMAGE = '33333333-3333-4333-8333-333333333333';

describe('behaviour mutants', () => {
  it('each names sentences, and triggers that are operations with a status', () => {
    for (const m of behaviourMutants()) {
      expect(m.sentences?.length, m.id).toBeGreaterThan(0);
      expect(m.reachesAny?.length, m.id).toBeGreaterThan(0);
    }
  });

  it('started-put-back answers SUBMITTED to each poll after the first that read STARTED, and leaves others', async () => {
    const { pass, log } = caseOf('behaviour:prediction-status:started-put-back');
    const read = (status: string) =>
      pass(exchange('GET', `/api/v1/predict/${SEG}`), answer(200, { prediction_id: SEG, status }));
    expect(json(await read('SUBMITTED')).status).toBe('SUBMITTED');
    expect(json(await read('STARTED')).status).toBe('STARTED');
    expect(json(await read('STARTED')).status).toBe('SUBMITTED');
    expect(json(await read('STARTED')).status).toBe('SUBMITTED');
    expect(json(await read('COMPLETED')).status).toBe('COMPLETED');
    expect(log.changed).toBe(2);
  });

  it('view-count-stale answers the first read of a share ever after', async () => {
    const { pass, log } = caseOf('behaviour:shares:view-count-stale');
    await pass(exchange('GET', `/api/v1/shares/${SHARE}`), answer(200, { id: SHARE, view_count: 0 }));
    const later = await pass(
      exchange('GET', `/api/v1/shares/${SHARE}`),
      answer(200, { id: SHARE, view_count: 2 }),
    );
    expect(json(later).view_count).toBe(0);
    expect(log.changed).toBe(1);
  });

  it('revoke-not-applied opens a revoked link with the page it showed before', async () => {
    const { pass } = caseOf('behaviour:shares:revoke-not-applied');
    const share = { id: SHARE, segmentation_id: SEG, url: 'http://proxy/share/tok', view_count: 0 };
    await pass(exchange('POST', '/api/v1/shares', 'k1', { segmentation_id: SEG }), answer(200, share));
    await pass(exchange('GET', '/share/tok', ''), answer(200, '<html>3 cells</html>', 'text/html'));
    await pass(exchange('DELETE', `/api/v1/shares/${SHARE}`), answer(200, share));
    const opened = await pass(exchange('GET', '/share/tok', ''), answer(404, { detail: 'Not Found' }));
    expect(opened.status).toBe(200);
    expect(opened.body.toString()).toBe('<html>3 cells</html>');
  });

  it("foreign-404-says-so edits only a 404 for another key's id", async () => {
    const { pass } = caseOf('behaviour:confinement:foreign-404-says-so');
    await pass(exchange('GET', `/api/v1/upload/${IMAGE}`, 'k1'), answer(200, { id: IMAGE }));
    const missing = await pass(
      exchange('GET', '/api/v1/upload/44444444-4444-4444-8444-444444444444', 'k2'),
      answer(404, { detail: 'Image not found' }),
    );
    expect(json(missing).detail).toBe('Image not found');
    const foreign = await pass(
      exchange('GET', `/api/v1/upload/${IMAGE}`, 'k2'),
      answer(404, { detail: 'Image not found' }),
    );
    expect(json(foreign).detail).toMatch(/another organization/);
  });

  it('abort-one-step-late answers the first read after an abort as still uploading', async () => {
    const { pass } = caseOf('behaviour:upload-parts:abort-one-step-late');
    await pass(exchange('POST', `/api/v1/upload/${IMAGE}/abort`), answer(200, { status: 'aborted' }));
    const image = { id: IMAGE, upload_status: 'failed', upload_error: 'aborted' };
    expect(
      json(await pass(exchange('GET', `/api/v1/upload/${IMAGE}`), answer(200, image))).upload_status,
    ).toBe('uploading');
    expect(
      json(await pass(exchange('GET', `/api/v1/upload/${IMAGE}`), answer(200, image))).upload_status,
    ).toBe('failed');
  });

  it('etag-unchecked lists each part with the ETag its PUT answered, whatever the client listed', async () => {
    const { pass } = caseOf('behaviour:listed-parts:etag-unchecked');
    const plan = { urls: [{ part_number: 1, url: 'http://proxy/storage/uploads/u/parts/1?expires=1' }] };
    await pass(
      exchange('POST', '/api/v1/upload', 'k1', { name: 'a', size: 1 }),
      answer(200, { image: { id: IMAGE }, upload: plan }),
    );
    const put = exchange('PUT', '/storage/uploads/u/parts/1?expires=1');
    await pass(put, { status: 200, headers: { etag: '"right"' }, body: Buffer.alloc(0) });
    const complete = exchange('POST', `/api/v1/upload/${IMAGE}/complete`, 'k1', {
      parts: [{ part_number: 1, etag: '"wrong"' }],
    });
    await pass(complete, answer(422, { detail: 'no' }));
    expect(JSON.parse(complete.body.toString())).toEqual({ parts: [{ part_number: 1, etag: '"right"' }] });
  });

  it('maximum-refused sends an opening of exactly 4 GiB as one byte more, and leaves any other size', async () => {
    const { pass } = caseOf('behaviour:upload-size:maximum-refused');
    const open = (path: string, size: number) => exchange('POST', path, 'k1', { name: 'big.tif', size });
    const exact = open('/api/v1/upload', 4 * 1024 ** 3);
    await pass(exact, answer(422, { detail: 'too large' }));
    expect(JSON.parse(exact.body.toString())).toEqual({ name: 'big.tif', size: 4 * 1024 ** 3 + 1 });
    const record = open('/api/v1/image', 4 * 1024 ** 3);
    await pass(record, answer(422, { detail: 'too large' }));
    expect(JSON.parse(record.body.toString()).size).toBe(4 * 1024 ** 3 + 1);
    const smaller = open('/api/v1/upload', 4 * 1024 ** 3 - 1);
    await pass(smaller, answer(200, {}));
    expect(JSON.parse(smaller.body.toString()).size).toBe(4 * 1024 ** 3 - 1);
  });

  it('duplicate-merged lists each part once, the last listing of it winning, and leaves a list without repeats', async () => {
    const { pass } = caseOf('behaviour:listed-parts:duplicate-merged');
    const complete = (parts: Array<[number, string]>) =>
      exchange('POST', `/api/v1/upload/${IMAGE}/complete`, 'k1', {
        parts: parts.map(([part_number, etag]) => ({ part_number, etag })),
      });
    const twice = complete([
      [1, '"a"'],
      [2, '"b"'],
      [1, '"c"'],
    ]);
    await pass(twice, answer(202, { status: 'processing' }));
    expect(JSON.parse(twice.body.toString())).toEqual({
      parts: [
        { part_number: 1, etag: '"c"' },
        { part_number: 2, etag: '"b"' },
      ],
    });
    const once = complete([
      [2, '"b"'],
      [1, '"a"'],
    ]);
    const sent = once.body.toString();
    await pass(once, answer(202, { status: 'processing' }));
    expect(once.body.toString()).toBe(sent);
  });

  it('expires-a-minute-early refuses a PUT in the last minute of its URL by the clock the proxy read', async () => {
    const { pass } = caseOf('behaviour:part-url-life:expires-a-minute-early');
    const expires = Math.floor(Date.now() / 1000) + 86_400;
    const ok = () => ({ status: 200, headers: { etag: '"e"' }, body: Buffer.alloc(0) });
    const put = () => exchange('PUT', `/storage/uploads/u/parts/1?expires=${expires}&signature=s`, '');
    expect((await pass(put(), ok())).status).toBe(200);
    const clock = new Date((expires - 30) * 1000).toISOString();
    await pass(exchange('POST', '/__mock/clock', '', { now: clock }), answer(200, { now: clock }));
    const late = await pass(put(), ok());
    expect(late.status).toBe(403);
    expect(late.body.toString()).toMatch(/<Code>AccessDenied<\/Code>/);
  });
  it('upper-case-not-found answers 404 for a path id in upper case, and leaves its lower-case form', async () => {
    const { pass, log } = caseOf('behaviour:id-case:upper-case-not-found');
    const lower = await pass(exchange('GET', `/api/v1/image/${IMAGE}`), answer(200, { id: IMAGE }));
    expect(lower.status).toBe(200);
    const upper = await pass(exchange('GET', `/api/v1/share/x/${SEG.replace(/2/g, 'A')}`), answer(200, {}));
    expect(upper.status).toBe(404);
    const page = await pass(exchange('GET', '/share/ABCDEF'), answer(200, 'page', 'text/html'));
    expect(page.status).toBe(200);
    expect(log.changed).toBe(1);
  });

  it('second-revoke-not-found answers 404 to a revoke of a revoked share only', async () => {
    const { pass } = caseOf('behaviour:shares:second-revoke-not-found');
    const revoke = () => pass(exchange('DELETE', `/api/v1/shares/${SHARE}`), answer(200, { id: SHARE }));
    expect((await revoke()).status).toBe(200);
    expect((await revoke()).status).toBe(404);
  });

  it('link-near-match-opens sends a link cut short or with its last character changed to the whole token', async () => {
    const { pass } = caseOf('behaviour:shares:link-near-match-opens');
    const token = 'AbCdEfGh12345678';
    await pass(
      exchange('POST', '/api/v1/shares', 'k1', { segmentation_id: SEG }),
      answer(200, { id: SHARE, segmentation_id: SEG, url: `http://x/share/${token}`, view_count: 0 }),
    );
    for (const sent of [token.slice(0, 8), token.slice(0, -1), `${token.slice(0, -1)}0`]) {
      const view = exchange('GET', `/share/${sent}`, '');
      await pass(view, answer(404, 'gone', 'text/html'));
      expect(view.path).toBe(`/share/${token}`);
    }
    const other = exchange('GET', '/share/zzzzzzzz', '');
    await pass(other, answer(404, 'gone', 'text/html'));
    expect(other.path).toBe('/share/zzzzzzzz');
  });
  it('any-scheme-taken sends the real key under another scheme, or none, as Bearer', async () => {
    const { pass } = caseOf('behaviour:auth-scheme:any-scheme-taken');
    for (const [sent, forwarded] of [
      ['Token sk_real', 'Bearer sk_real'],
      ['sk_real', 'Bearer sk_real'],
      ['bearer sk_real', 'bearer sk_real'],
      ['Bearer sk_real', 'Bearer sk_real'],
    ]) {
      const request = exchange('GET', '/api/v1/models');
      request.headers.set('authorization', sent!);
      await pass(request, answer(200, []));
      expect(request.headers.get('authorization'), sent).toBe(forwarded);
    }
  });

  it('query-key-taken sends a key from the query of a request with no header as Bearer, and leaves a header alone', async () => {
    const { pass } = caseOf('behaviour:query-key:query-key-taken');
    for (const [path, sent, forwarded] of [
      ['/api/v1/models?api_key=sk_q', null, 'Bearer sk_q'],
      ['/api/v1/models?access_token=sk_q', null, 'Bearer sk_q'],
      ['/api/v1/models', null, null],
      ['/api/v1/models?api_key=sk_q', 'Bearer sk_h', 'Bearer sk_h'],
    ]) {
      const request = exchange('GET', path!);
      request.headers.delete('authorization');
      if (sent) request.headers.set('authorization', sent);
      await pass(request, answer(401, { detail: 'Not authenticated' }));
      expect(request.headers.get('authorization'), path!).toBe(forwarded);
    }
  });

  it('image-of-its-key-only answers 404 to another key of the image it saw made, and leaves its maker', async () => {
    const { pass, log } = caseOf('behaviour:key-scope:image-of-its-key-only');
    await pass(exchange('POST', '/api/v1/upload', 'k1'), answer(200, { image: { id: IMAGE }, upload: null }));
    expect(
      (await pass(exchange('GET', `/api/v1/image/${IMAGE}`, 'k1'), answer(200, { id: IMAGE }))).status,
    ).toBe(200);
    expect(
      (await pass(exchange('GET', `/api/v1/image/${IMAGE}`, 'k2'), answer(200, { id: IMAGE }))).status,
    ).toBe(404);
    expect(log.changed).toBe(1);
  });

  it('retired-model-listed adds one base model to the list, under a new id', async () => {
    const { pass } = caseOf('behaviour:key-scope:retired-model-listed');
    const listed = await pass(
      exchange('GET', '/api/v1/models'),
      answer(200, [{ id: IMAGE, name: 'nuclei', kind: 'base' }]),
    );
    const models = JSON.parse(listed.body.toString('utf8')) as Array<{ id: string; kind: string }>;
    expect(models).toHaveLength(2);
    expect(models[1]).toMatchObject({ kind: 'base', name: 'nuclei-retired' });
    expect(models[1]!.id).not.toBe(IMAGE);
  });
});
