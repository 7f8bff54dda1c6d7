import { expect } from 'vitest';
import { check } from '../harness/check.js';
import { throwawayOrganization } from '../harness/control-plane.js';
import { trackImage, uploadFile } from '../harness/flows.js';
import { presetTiff } from '../harness/sample-images.js';
import { expectStatus, need } from '../harness/steps.js';
import type { Image } from '../../openapi/generated/client/types.gen.js';
import type { components } from '../../openapi/generated/mock-control-types.js';

type MockOrganization = components['schemas']['MockOrganization'];

const NOT_A_UUID = 'not-a-uuid';

check(
  'a request without credentials answers 401 with a detail',
  { clauses: ['AUTH-01', 'ERR-01'], prismAnswersItself: true },
  async ({ api }) => {
    const response = await api.call('listModels', { key: null });
    expectStatus(response, 401);
    expect(typeof (response.body as { detail: unknown }).detail).toBe('string');
  },
);

check('an unknown API key answers 401', { clauses: ['AUTH-02', 'ERR-01'] }, async ({ api }) => {
  const response = await api.call('listModels', { key: 'sk_test_this_key_does_not_exist_0000000000' });
  expectStatus(response, 401);
});

check(
  'a real key with its case changed, one character changed, characters added or cut answers 401',
  { clauses: ['AUTH-02'] },
  async ({ api, target }) => {
    // the oracle predicts the 401: a key is compared whole and exactly, never by a prefix, a
    // fixed width or folded
    const key = target.keys.main;
    const last = key.at(-1) === '0' ? '1' : '0';
    for (const forged of [key.toUpperCase(), key.slice(0, -1) + last, `${key}0`, key.slice(0, -1)]) {
      if (forged === key) continue;
      expectStatus(await api.call('listModels', { key: forged }), 401, 'a changed key');
    }
  },
);

check(
  'an Authorization header that is not Bearer answers 401',
  { clauses: ['AUTH-03'], prismAnswersItself: true },
  async ({ api, target }) => {
    // the real key under another scheme too: a key read from whatever follows the first space,
    // the scheme never checked, takes it
    const key = target.keys.main;
    for (const header of [
      `Basic ${Buffer.from('user:pass').toString('base64')}`,
      `Basic ${key}`,
      `Token ${key}`,
      key,
      'Bearer',
      'Bearer  ',
    ]) {
      const response = await api.call('listModels', { key: `!${header}` });
      expectStatus(response, 401, `Authorization: ${header.slice(0, 12)}...`);
    }
  },
);

check(
  'the real key under the scheme written bearer or BEARER is taken (upload, list, read, delete); parted from it by two spaces or a tab, taken or 401',
  { clauses: ['AUTH-07'], prismAnswersItself: true },
  async (ctx) => {
    // an HTTP authentication scheme is matched without case (RFC 9110 11.1; the document's
    // bearerAuth is `type: http`): the oracle judges each answer as the key's under `Bearer `,
    // never a 401, on a write, the list, a read and a delete. More spaces, or a tab, between
    // `Bearer` and the key: RFC 9110 11.4 allows the spaces (1*SP), but a target that splits the
    // header at its first space (FastAPI's HTTPBearer) refuses both, and the document says
    // neither, so each is the key's own answer or a 401 (which changes nothing)
    const key = ctx.target.keys.main;
    const lower = ctx.clientFor(`!bearer ${key}`);
    const upper = ctx.clientFor(`!BEARER ${key}`);
    const spaced = ctx.clientFor(`!Bearer  ${key}`);
    const tabbed = ctx.clientFor(`!Bearer\t${key}`);
    expectStatus(await lower.call('listModels'), 200, 'GET /models under the scheme bearer');
    expectStatus(await spaced.call('listModels'), [200, 401], 'GET /models with two spaces after Bearer');
    expectStatus(await tabbed.call('listModels'), [200, 401], 'GET /models with a tab after Bearer');
    const uploaded = await uploadFile(ctx, presetTiff().bytes, 'scheme-case.tif', lower);
    expectStatus(uploaded, 200, 'POST /upload under the scheme bearer');
    const params = { image_id: uploaded.body.image.id };
    expectStatus(await upper.call('getImage', { params }), 200, 'GET /image/{id} under the scheme BEARER');
    expectStatus(
      await spaced.call('getUpload', { params }),
      [200, 401],
      'GET /upload/{id} with two spaces after Bearer',
    );
    expectStatus(await upper.call('deleteImage', { params }), [200, 204], 'DELETE under the scheme BEARER');
  },
);

check(
  'a key sent in the query, with no Authorization header, answers 401',
  // a throw-away organization's key: a run's own key never goes into a URL (access logs, proxies)
  { clauses: ['AUTH-09'], prismAnswersItself: true, requires: ['control'] },
  async (ctx) => {
    // the interface names the header; a key read from the query too lands in URLs and logs. The
    // names are the common ones: `api_key`, and RFC 6750 2.3's `access_token`. The oracle
    // predicts the 401 of a request sent with no key (AUTH-09, the suite's reading).
    const org = await throwawayOrganization(ctx, 'query-key', {
      storage_cap_images: 1,
      monthly_analysis_cap: 1,
    });
    for (const name of ['api_key', 'access_token'])
      expectStatus(
        await ctx.api.call('listModels', { key: null, query: { [name]: org.key } }),
        401,
        `GET /models?${name}=<key> with no Authorization header`,
      );
  },
);

check(
  'credentials are checked before anything else, even on a bad id',
  { clauses: ['AUTH-01'], prismAnswersItself: true },
  async ({ api }) => {
    const response = await api.call('getUpload', { key: null, params: { image_id: NOT_A_UUID } });
    expectStatus(response, 401);
  },
);

check(
  'a valid key on an endpoint outside the public surface answers 403',
  { clauses: ['AUTH-04', 'AUTH-05', 'ERR-01'] },
  async (ctx) => {
    const { api } = ctx;
    const keyCreation = await api.call('createApiKey', { body: { name: 'contract' } });
    expectStatus(keyCreation, 403);
    expect(typeof (keyCreation.body as { detail: unknown }).detail).toBe('string');
    expectStatus(await api.call('listOrganizations'), 403);
    // other spellings a router may take for the same paths (a trailing slash, a doubled slash,
    // another case, a percent-encoded letter): a guard that compares the path as written lets them
    // through. The oracle holds each to no 2xx (a 403, a 404 of a route the target does not know,
    // a redirect to the path: contract-tests/model/internal-paths.ts)
    for (const path of ['/api/v1/organizations/', '/api/v1//organizations', '/api/v1/Organizations'])
      await api.raw('GET', path);
    // a key such a guard lets a request create is a real one nothing here can revoke: the
    // creations go with a throw-away organization's key, where the control plane makes one
    if (!ctx.target.capabilities.has('control')) return;
    const org = await throwawayOrganization(ctx, 'internal-spellings', {
      storage_cap_images: 1,
      monthly_analysis_cap: 1,
    });
    for (const path of ['/api/v1/api-keys/', '/api/v1/API-keys', '/api/v1/%61pi-keys'])
      await org.client.raw('POST', path, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'contract' }),
      });
  },
);

check(
  "revoking one key of an organization revokes that key alone: a rotation's new key keeps its images and models",
  // the organization, its keys and the revocation are the control plane's (the dashboard's stand-in)
  { clauses: ['AUTH-10', 'AUTH-02'], requires: ['control'] },
  async (ctx) => {
    // a rotation: add a key, move the clients, revoke the old one. The oracle takes the revoked
    // key as invalid from the next request on (401) and every other key of the organization as
    // still its own, never 401 (contract-tests/model/organizations.ts)
    const org = await throwawayOrganization(ctx, 'rotation', {
      storage_cap_images: 1,
      monthly_analysis_cap: 1,
    });
    // an image record of the old key's, deleted at the end with the key that outlives it
    const moved = await org.addKey();
    const image = need(
      await org.client.call<Image>('createImage', {
        body: { name: `${ctx.target.namePrefix}rotation.tif`, size: 1000, image_type: 'TIFF' },
      }),
      200,
      ['id'],
    ).body.id;
    trackImage(ctx, moved, image);
    const admin = { key: ctx.target.adminToken ?? null, baseUrl: ctx.target.directBaseUrl };
    const listed = need(await ctx.api.call<MockOrganization[]>('mockListOrganizations', admin), 200).body;
    const old = listed.find((o) => o.id === org.id)?.keys.find((k) => org.key.startsWith(k.prefix));
    if (!old) throw new Error(`the organization ${org.id} lists no key with the first key's prefix`);
    need(
      await ctx.api.call('mockRevokeApiKey', {
        ...admin,
        params: { organization_id: org.id, key_id: old.id },
      }),
      200,
    );
    expectStatus(await org.client.call('listModels'), 401, 'GET /models with the revoked key');
    expectStatus(await moved.call('listModels'), 200, 'GET /models with the key added before the revoke');
    expectStatus(
      await moved.call('getImage', { params: { image_id: image } }),
      200,
      'GET /image/{id} of an image the revoked key made, with the key added before the revoke',
    );
  },
);

check(
  'the non-public surface still answers 401 without credentials',
  { clauses: ['AUTH-01', 'AUTH-04'], prismAnswersItself: true },
  async ({ api }) => {
    expectStatus(await api.call('createApiKey', { key: null }), 401);
  },
);

check('an unknown route answers 404 with a detail', { clauses: ['ERR-02'] }, async ({ api }) => {
  const response = await api.raw('GET', '/api/v1/this-route-does-not-exist');
  expectStatus(response, 404);
  const body = (await response.json()) as { detail: unknown };
  expect(typeof body.detail).toBe('string');
});
