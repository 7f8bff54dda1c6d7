import { describe, expect, it } from 'vitest';
import type { Exchange } from './exchange.js';
import { Oracle } from './oracle.js';
import { testExchange as exchange } from './exchange-fixture.js';

const KEY = 'sk_main';
const IMAGE = 'abcdef01-1111-4111-8111-11111111aaaa';
const MODEL = 'bcdef012-4444-4444-8444-44444444bbbb';
const PREDICTION = '22222222-2222-4222-8222-222222222222';
const SEGMENTATION = 'cdef0123-3333-4333-8333-33333333cccc';
const SHARE = '55555555-5555-4555-8555-555555555555';
const ORIGIN = 'https://page.example';

const subjects = (oracle: Oracle, x: Exchange) =>
  oracle.observe(x).map((f) => `${f.subject}: ${f.predicted} / ${f.received}`);

/** An oracle that has seen the models listed and a ready image uploaded (ids in lower case). */
function withReadyImage(): Oracle {
  const oracle = new Oracle();
  oracle.knowKeys({ main: KEY });
  const image = { id: IMAGE, name: 'cells.tif', size: 10, upload_status: 'ready', shape: [4, 4] };
  for (const step of [
    exchange('listModels', 200, [{ id: MODEL, name: 'nuclei', kind: 'base' }]),
    exchange(
      'uploadImage',
      200,
      { image, success: true, upload: null },
      { sent: { file: { name: 'cells.tif', size: 10 } } },
    ),
  ])
    expect(oracle.observe(step)).toEqual([]);
  return oracle;
}

/** withReadyImage's oracle that has also seen the image predicted to completion with 3 cells. */
function withSegmentation(): Oracle {
  const oracle = withReadyImage();
  const sent = { image_id: IMAGE, model_id: MODEL };
  const submitted = { prediction_id: PREDICTION, status: 'submitted', reason: '' };
  oracle.observe(exchange('createPrediction', 200, submitted, { method: 'POST', sent }));
  const completed = {
    prediction_id: PREDICTION,
    status: 'COMPLETED',
    ...sent,
    segmentation_id: SEGMENTATION,
  };
  oracle.observe(
    exchange(
      'getPrediction',
      200,
      { ...completed, cell_count: 3 },
      { params: { prediction_id: PREDICTION } },
    ),
  );
  return oracle;
}

describe('the oracle on credentials, body ids and CORS', () => {
  it('never takes a 401 for a key it knows, whatever case the scheme was written in', () => {
    const oracle = withReadyImage();
    // the harness reads `bearer <key>` as the key: a 401 for it is a valid key refused
    expect(subjects(oracle, exchange('listModels', 401, { detail: 'Invalid API key' }))).toEqual([
      'listModels status: not 401 / 401',
    ]);
    expect(subjects(oracle, exchange('listModels', 401, { detail: 'x' }, { key: 'sk_nobody' }))).toEqual([]);
    expect(subjects(oracle, exchange('listModels', 401, { detail: 'x' }, { key: null }))).toEqual([]);
  });

  it('predicts 401 for an Authorization header that carries no Bearer token, a key in the query or in another header alone', () => {
    const oracle = withReadyImage();
    // Basic, Token, `Bearer<key>`, the key alone: the harness says the header is of another scheme
    const other = (status: number) =>
      subjects(
        oracle,
        exchange('getImage', status, {}, { key: undefined, otherScheme: true, params: { image_id: IMAGE } }),
      );
    expect(other(200)).toEqual(['getImage status: 401 / 200']);
    expect(other(404)).toEqual(['getImage status: 401 / 404']);
    expect(other(401)).toEqual([]);
    // X-API-Key alone, or the key in the query: no Authorization header went
    const query = exchange('listModels', 200, [], {
      key: null,
      url: `http://target/api/v1/models?api_key=${KEY}`,
    });
    expect(oracle.observe(query).map((f) => f.sentence)).toEqual([expect.stringMatching(/^AUTH-09/)]);
    const header = exchange('listModels', 200, [], { key: null, sentHeaders: { 'x-api-key': KEY } });
    expect(subjects(oracle, header)).toEqual(['listModels status: 401 / 200']);
  });

  it("judges predict's body ids in upper case as the ids they name, and never a 404 for its own ready image", () => {
    const oracle = withReadyImage();
    const predict = (status: number, body: unknown, imageId = IMAGE, modelId = MODEL) =>
      oracle.observe(
        exchange('createPrediction', status, body, {
          method: 'POST',
          sent: { image_id: imageId.toUpperCase(), model_id: modelId.toUpperCase() },
        }),
      );
    const notFound = predict(404, { detail: 'Image not found' });
    expect(notFound.map((f) => `${f.subject}: ${f.predicted} / ${f.received}`)).toEqual([
      'createPrediction status: 200 or 402 or 429 / 404',
    ]);
    expect(notFound[0].sentence).toMatch(/upper case/);
    expect(predict(200, { prediction_id: PREDICTION, status: 'submitted', reason: '' })).toEqual([]);
    // the same image and model in flight: an identical prediction, found by its lower-case ids
    expect(predict(200, { prediction_id: PREDICTION, status: 'skipped', reason: '' })).toEqual([]);
    // a model the list did not name is still a 404
    expect(predict(404, { detail: 'Model not found' }, IMAGE, SHARE)).toEqual([]);
  });

  it('judges a share asked with the segmentation id in upper case as the same share', () => {
    const oracle = withSegmentation();
    const share = {
      id: SHARE,
      segmentation_id: SEGMENTATION,
      access: 'anyone_with_link',
      role: 'viewer',
      url: 'http://target/share/abcdefghijklmnopqrstuvwxyz',
      view_count: 0,
      last_viewed_at: null,
      created_at: 't',
      revoked_at: null,
    };
    const create = (status: number, body: unknown, id: string) =>
      subjects(
        oracle,
        exchange('createShare', status, body, { method: 'POST', sent: { segmentation_id: id } }),
      );
    expect(create(200, share, SEGMENTATION)).toEqual([]);
    expect(create(404, { detail: 'Segmentation not found' }, SEGMENTATION.toUpperCase())).toEqual([
      'createShare status: 200 / 404',
    ]);
    expect(create(200, { ...share, id: PREDICTION }, SEGMENTATION.toUpperCase())).toEqual([
      `createShare again: id: "${SHARE}" / "${PREDICTION}"`,
    ]);
  });

  it('judges ids in the urn:uuid: form, in a body or a path, as the ids they name', () => {
    const oracle = withSegmentation();
    const urn = (id: string) => `urn:uuid:${id}`;
    const predict = (status: number, body: unknown) =>
      oracle.observe(
        exchange('createPrediction', status, body, {
          method: 'POST',
          sent: { image_id: urn(IMAGE.toUpperCase()), model_id: urn(MODEL) },
        }),
      );
    // refused as no UUID: format uuid takes the prefix, so the image and model are found
    const refused = predict(422, { detail: "image_id: 'urn:uuid:…' is not a valid UUID" });
    expect(refused.map((f) => `${f.subject}: ${f.predicted} / ${f.received}`)).toEqual([
      'createPrediction status: 200 or 402 or 429 / 422',
    ]);
    expect(refused[0].sentence).toMatch(/urn:uuid:/);
    const read = (status: number, body: unknown) =>
      subjects(
        oracle,
        exchange('getPrediction', status, body, { params: { prediction_id: urn(PREDICTION) } }),
      );
    expect(read(422, { detail: 'not a UUID' })).toEqual(['getPrediction status: 200 / 422']);
    expect(
      read(200, {
        prediction_id: PREDICTION,
        status: 'COMPLETED',
        image_id: IMAGE,
        model_id: MODEL,
        segmentation_id: SEGMENTATION,
        cell_count: 3,
      }),
    ).toEqual([]);
    // the prefix in another case is one pydantic refuses and the document's format takes: left open
    expect(
      oracle.observe(
        exchange(
          'getPrediction',
          422,
          { detail: 'x' },
          { params: { prediction_id: `URN:UUID:${PREDICTION}` } },
        ),
      ),
    ).toEqual([]);
  });
  it('opens a live share page whatever credential comes with it', () => {
    const oracle = withSegmentation();
    const url = 'http://target/share/abcdefghijklmnopqrstuvwxyz';
    oracle.observe(
      exchange(
        'createShare',
        200,
        {
          id: SHARE,
          segmentation_id: SEGMENTATION,
          access: 'anyone_with_link',
          role: 'viewer',
          url,
          view_count: 0,
          last_viewed_at: null,
          created_at: 't',
          revoked_at: null,
        },
        { method: 'POST', sent: { segmentation_id: SEGMENTATION } },
      ),
    );
    const page = (status: number, key: string | null) =>
      subjects(
        oracle,
        exchange('viewSharePage', status, '<p>3 cells</p>', {
          url,
          key,
          headers: { 'content-type': 'text/html' },
          bytes: Buffer.from('<p>3 cells</p>'),
        }),
      );
    expect(page(200, 'sk_nobody')).toEqual([]);
    expect(page(401, 'sk_nobody')).toEqual([`GET the share page of share ${SHARE}: 200 / 401`]);
  });

  it("holds an answer to a request with an Origin it allows to the document's exposed headers", () => {
    let oracle = new Oracle();
    const all = 'ETag, Content-Disposition, X-Request-Id, Retry-After, WWW-Authenticate, Allow';
    const put = (headers: Record<string, string>, sentHeaders: Record<string, string> = { origin: ORIGIN }) =>
      subjects(
        oracle,
        exchange('PUT /storage/{key}', 200, '', {
          method: 'PUT',
          url: 'http://target/storage/bucket/key?partNumber=1',
          key: null,
          sentHeaders,
          headers: { etag: '"abc"', ...headers },
        }),
      );
    expect(put({ 'access-control-allow-origin': '*', 'access-control-expose-headers': all })).toEqual([]);
    expect(
      put({
        'access-control-allow-origin': '*',
        'access-control-expose-headers':
          'Content-Disposition, X-Request-Id, Retry-After, WWW-Authenticate, Allow',
      }),
    ).toEqual([
      'PUT /storage/bucket/key (Origin https://page.example): Access-Control-Expose-Headers: lists ETag / "Content-Disposition, X-Request-Id, Retry-After, WWW-Authenticate, Allow"',
    ]);
    expect(put({ 'access-control-allow-origin': ORIGIN, 'access-control-expose-headers': '*' })).toEqual([]);
    // an origin the target does not allow (it never allowed it), or a request no browser sent: nothing to judge
    oracle = new Oracle();
    expect(put({ 'access-control-allow-origin': 'https://elsewhere.example' })).toEqual([]);
    expect(put({}, {})).toEqual([]);
  });

  it('holds a preflight of an operation from an allowed origin to an ok status with its method and headers', () => {
    const oracle = new Oracle();
    const preflight = (
      status: number,
      headers: Record<string, string>,
      url = 'http://target/api/v1/models',
    ) =>
      subjects(
        oracle,
        exchange('OPTIONS /api/v1/models', status, '', {
          method: 'OPTIONS',
          url,
          key: null,
          sentHeaders: {
            origin: ORIGIN,
            'access-control-request-method': 'GET',
            'access-control-request-headers': 'authorization,x-request-id',
          },
          headers,
        }),
      );
    const ok = {
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, OPTIONS',
      'access-control-allow-headers': 'Authorization, Content-Type, X-Request-Id',
    };
    expect(preflight(200, ok)).toEqual([]);
    expect(preflight(204, { ...ok, 'access-control-allow-headers': 'authorization, *' })).toEqual([]);
    // a key asked of a preflight, which never carries one
    expect(preflight(401, { 'access-control-allow-origin': '*' })).toEqual([
      'OPTIONS /api/v1/models (Origin https://page.example): status: an ok status (2xx) / 401',
      'OPTIONS /api/v1/models (Origin https://page.example): Access-Control-Allow-Headers: lists authorization, x-request-id / null',
    ]);
    // `*` does not stand for Authorization (Fetch)
    expect(preflight(200, { ...ok, 'access-control-allow-headers': '*' })).toEqual([
      'OPTIONS /api/v1/models (Origin https://page.example): Access-Control-Allow-Headers: lists authorization / "*"',
    ]);
    // an origin nothing allowed yet, or a method the path does not have: nothing to judge
    expect(preflight(403, {})).toEqual([]);
    expect(preflight(405, {}, 'http://target/api/v1/predict')).toEqual([]);
    // once an answer allowed the origin, its preflight answered without CORS headers is judged
    oracle.observe(
      exchange('listModels', 200, [], {
        sentHeaders: { origin: ORIGIN },
        headers: { 'access-control-allow-origin': '*', 'access-control-expose-headers': '*' },
      }),
    );
    expect(preflight(401, { ...ok, 'access-control-allow-origin': '' })[0]).toBe(
      'OPTIONS /api/v1/models (Origin https://page.example): status: an ok status (2xx) / 401',
    );
  });

  it('holds every answer of a host to an origin it allowed before: a 401 without CORS headers is judged', () => {
    const oracle = new Oracle();
    oracle.knowKeys({ main: KEY });
    const allowed = { 'access-control-allow-origin': '*', 'access-control-expose-headers': '*' };
    const unauthorized = (url = 'http://target/api/v1/models') =>
      subjects(
        oracle,
        exchange(
          'listModels',
          401,
          { detail: 'Not authenticated' },
          {
            key: null,
            url,
            sentHeaders: { origin: ORIGIN },
            headers: { 'www-authenticate': 'Bearer' },
          },
        ),
      );
    // an origin the host never allowed: its configuration, left alone
    expect(unauthorized()).toEqual([]);
    expect(
      subjects(
        oracle,
        exchange('listModels', 200, [], { sentHeaders: { origin: ORIGIN }, headers: allowed }),
      ),
    ).toEqual([]);
    expect(unauthorized()).toEqual([
      'GET /api/v1/models (Origin https://page.example): Access-Control-Allow-Origin of a 401 (the host allowed the origin before): * or https://page.example / null',
    ]);
    // another host (a storage host of the part URLs, say) has a configuration of its own
    expect(unauthorized('http://storage.example/api/v1/models')).toEqual([]);
    // a 5xx is the server errors' rule
    expect(
      subjects(oracle, exchange('listModels', 503, { detail: 'down' }, { sentHeaders: { origin: ORIGIN } })),
    ).toEqual([]);
  });

  it('needs no CORS-safelisted method listed, and every other one (Fetch)', () => {
    const oracle = new Oracle();
    const preflight = (method: string, path: string, allowMethods: string) =>
      subjects(
        oracle,
        exchange(`OPTIONS ${path}`, 204, '', {
          method: 'OPTIONS',
          url: `http://target${path}`,
          key: null,
          sentHeaders: { origin: ORIGIN, 'access-control-request-method': method },
          headers: { 'access-control-allow-origin': '*', 'access-control-allow-methods': allowMethods },
        }),
      );
    expect(preflight('GET', '/api/v1/models', 'OPTIONS')).toEqual([]);
    expect(preflight('POST', '/api/v1/image', 'DELETE')).toEqual([]);
    expect(preflight('DELETE', `/api/v1/image/${IMAGE}`, 'GET, POST')).toEqual([
      'OPTIONS /api/v1/image/… (Origin https://page.example): Access-Control-Allow-Methods: lists DELETE / "GET, POST"',
    ]);
  });

  it('judges the preflights of a target mounted under a path, with that path taken off first', () => {
    const oracle = new Oracle();
    oracle.knowBase('https://gw.example/cellseg/');
    const preflight = (url: string) =>
      subjects(
        oracle,
        exchange('OPTIONS', 401, '', {
          method: 'OPTIONS',
          url,
          key: null,
          sentHeaders: { origin: ORIGIN, 'access-control-request-method': 'GET' },
          headers: { 'access-control-allow-origin': '*' },
        }),
      );
    expect(preflight('https://gw.example/cellseg/api/v1/models')).toEqual([
      'OPTIONS /cellseg/api/v1/models (Origin https://page.example): status: an ok status (2xx) / 401',
    ]);
    // outside the target's root: no operation of the document
    expect(preflight('https://gw.example/api/v1/models')).toEqual([]);
  });
});
