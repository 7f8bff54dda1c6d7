/**
 * Secure by default off loopback: a generated admin token, seed keys left out,
 * and every control route behind the token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME_KEY, apiClient } from '../../../test-support/api-client.js';
import { eventually, freePort, launchMock } from '../../../test-support/launched-mock.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { isLoopback, secureByDefault, seedKeysLoaded } from '../../exposure.js';
import { loadConfig } from '../../config.js';
import { servedDocument } from '../../../openapi/documents.js';
import { DASHBOARD_PATH } from '../../control/ui/render-dashboard-page.js';
import type { RunningMock } from '../../server.js';

describe('what counts as loopback', () => {
  it('is 127.0.0.0/8, ::1 and localhost; every other interface is exposed', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'])
      expect(isLoopback(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.org', '128.0.0.1'])
      expect(isLoopback(host), host).toBe(false);
  });

  it('generates a token and leaves the seed keys out off loopback, and changes nothing on loopback', () => {
    const local = loadConfig([], {});
    expect(secureByDefault(local)).toEqual({ config: local, generatedToken: false });
    expect(seedKeysLoaded(local)).toBe(true);

    const exposed = secureByDefault(loadConfig(['--host', '0.0.0.0'], {}));
    expect(exposed.generatedToken).toBe(true);
    expect(exposed.config.adminToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(seedKeysLoaded(exposed.config)).toBe(false);
    expect(seedKeysLoaded(loadConfig(['--host', '0.0.0.0', '--seed-keys', 'on'], {}))).toBe(true);

    const chosen = secureByDefault(loadConfig(['--host', '0.0.0.0', '--admin-token', 'mine'], {}));
    expect(chosen).toMatchObject({ generatedToken: false, config: { adminToken: 'mine' } });

    // A shared sandbox behind a proxy on the same host listens on loopback and is still exposed.
    const sandbox = secureByDefault(loadConfig(['--sandbox', 'on'], {}));
    expect(sandbox.generatedToken).toBe(true);
    expect(seedKeysLoaded(sandbox.config)).toBe(false);
    expect(() => secureByDefault(loadConfig(['--seed-keys', 'yes'], {}))).toThrow(
      "option --seed-keys takes on or off, not 'yes'",
    );
  });
});

describe('node bin/cellseg-mock.js --host 0.0.0.0', () => {
  it('prints a generated token once; /__mock answers 401 without it and 200 with it; seed keys are not loaded', async () => {
    const port = await freePort();
    const mock = launchMock(
      process.execPath,
      ['bin/cellseg-mock.js', 'start', '--host', '0.0.0.0', '--port', String(port)],
      {
        ADMIN_TOKEN: '',
        SEED_KEYS: '',
      },
    );
    try {
      await mock.url;
      expect(await eventually(() => /Seeded keys:/.test(mock.output()), 10_000)).toBe(true);
      const token = /generated for this run, shown only here: (\S+)/.exec(mock.output())?.[1];
      expect(token).toBeDefined();
      expect(mock.output()).toMatch(/Seeded keys: +not loaded/);
      expect(mock.output()).not.toContain(ACME_KEY);
      const base = `http://127.0.0.1:${port}`;
      const api = apiClient(base);
      expect((await api.call('GET', '/__mock/organizations', undefined, null)).status).toBe(401);
      expect((await api.call('GET', '/__mock/organizations', undefined, 'wrong')).status).toBe(401);
      expect((await api.call('GET', '/__mock/organizations', undefined, token!)).status).toBe(200);
      expect((await api.call('GET', '/api/v1/models', undefined, ACME_KEY)).status).toBe(401);
    } finally {
      // SIGTERM, so the mock removes its temporary data folder; SIGKILL only if that is not enough.
      process.kill(-mock.child.pid!, 'SIGTERM');
      if (
        (await Promise.race([mock.exited, new Promise((r) => setTimeout(() => r('late'), 20_000))])) ===
        'late'
      )
        mock.kill();
    }
  });
});

describe('startMock and the tests off loopback', () => {
  it('generate a token too, and load no seed keys', async () => {
    const mock = await startInstantMock({ host: '0.0.0.0' });
    try {
      expect(mock.config.adminToken).not.toBe('');
      const base = mock.url.replace('0.0.0.0', '127.0.0.1');
      expect((await apiClient(base).call('GET', '/__mock/organizations', undefined, null)).status).toBe(401);
      expect((await apiClient(base).call('GET', '/api/v1/models', undefined, ACME_KEY)).status).toBe(401);
    } finally {
      await mock.close();
    }
  });
});

describe('with an admin token, every control route of the document', () => {
  const ADMIN = 'every-route-admin-token';
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startInstantMock({ adminToken: ADMIN });
  });
  afterAll(() => mock?.close());

  it("answers 401 without the token and with a wrong one, 403 to an organization's key (health aside), and the dashboard data too", async () => {
    const ids: Record<string, string> = {
      organization_id: 'bf4d51a1-7a32-4109-b955-46a2a3ad11f0',
      image_id: '00000000-0000-4000-8000-000000000000',
      segmentation_id: '00000000-0000-4000-8000-000000000000',
      key_id: 'key_0000000000000000',
      file: 'measurements.csv',
    };
    let checked = 0;
    for (const [route, item] of Object.entries(servedDocument().paths)) {
      if (!route.startsWith('/__mock') && route !== '/metrics') continue;
      for (const [method, operation] of Object.entries(
        item as Record<string, { security?: Array<Record<string, unknown>> }>,
      )) {
        if (!['get', 'post', 'put', 'delete', 'patch'].includes(method)) continue;
        // An organization's own test helpers take its key, not the token: organization-test-helpers.test.ts.
        if (operation.security?.some((scheme) => 'bearerAuth' in scheme)) continue;
        const open = Array.isArray(operation.security) && operation.security.length === 0;
        const path = route.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? name);
        for (const key of [null, 'wrong-token', ACME_KEY]) {
          const answer = await apiClient(mock.url).call(
            method.toUpperCase(),
            path,
            method === 'get' ? undefined : {},
            key,
          );
          // A valid key outside its surface is refused as the interface refuses one (403).
          const refused = key === ACME_KEY ? 403 : 401;
          expect(answer.status, `${method} ${path} with ${key}`).toBe(open ? 200 : refused);
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(15);
    // The page itself is a shell that asks for the token; it holds no state.
    expect((await apiClient(mock.url).call('GET', DASHBOARD_PATH, undefined, null)).status).toBe(200);
  });
});
