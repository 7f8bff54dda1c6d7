/**
 * API keys are secrets: shown once at creation, never in any later answer, stored
 * only as hashes, revocable through the control plane.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import { apiClient } from '../../../test-support/api-client.js';
import { servedDocument } from '../../../openapi/documents.js';
import { DASHBOARD_PATH } from '../../control/ui/render-dashboard-page.js';
import type { RunningMock } from '../../server.js';

const ADMIN = 'secrecy-test-admin-token';
const PLAN = { storage_cap_images: 10, monthly_analysis_cap: 10 };

describe('API keys are secrets', () => {
  let mock: RunningMock;
  let dataDir: string;
  const call = (method: string, route: string, body?: unknown, key: string | null = ADMIN) =>
    apiClient(mock.url).call(method, route, body, key);

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'key-secrecy-'));
    mock = await startInstantMock({ adminToken: ADMIN, dataDir });
  });
  afterAll(async () => {
    await mock?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('shows a key once: no control read, dashboard read or journal answer holds it afterwards', async () => {
    const created = await call('POST', '/__mock/organizations', { name: 'Secret Keeper', plan: PLAN });
    expect(created.status).toBe(200);
    const orgId: string = created.body.id;
    const key: string = created.body.api_keys[0];
    const added = await call('POST', `/__mock/organizations/${orgId}/keys`);
    expect(added.body).toMatchObject({ api_key: expect.stringMatching(/^sk_test_/), id: expect.any(String) });
    const secrets = [key, added.body.api_key as string];
    // Work done with the key, so the journal, the images and the exports all have something to show.
    const done = await apiClient(mock.url, key).completedSegmentation();

    const values: Record<string, string> = {
      organization_id: orgId,
      image_id: done.imageId,
      segmentation_id: done.segmentationId,
      file: 'measurements.csv',
    };
    const routes = [DASHBOARD_PATH];
    for (const [route, item] of Object.entries(servedDocument().paths)) {
      if (!route.startsWith('/__mock') || !('get' in item)) continue;
      routes.push(route.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? name));
    }
    expect(routes).toEqual(
      expect.arrayContaining(['/__mock/organizations', '/__mock/journal', '/__mock/images']),
    );
    for (const route of routes) {
      // The organization's own test helpers (/__mock/org) answer its key, not the operator's token.
      const answer = await call('GET', route, undefined, route.startsWith('/__mock/org/') ? key : ADMIN);
      expect(answer.status, route).toBe(200);
      for (const secret of secrets) expect(answer.text, route).not.toContain(secret);
    }
    const listed = (await call('GET', '/__mock/organizations')).body as Array<{ id: string; keys: unknown }>;
    expect(listed.find((o) => o.id === orgId)?.keys).toEqual([
      { id: expect.stringMatching(/^key_[0-9a-f]{16}$/), prefix: key.slice(0, 12) },
      { id: added.body.id, prefix: added.body.prefix },
    ]);
  });

  it('keeps no key in clear in the database file', async () => {
    const created = await call('POST', '/__mock/organizations', { name: 'On Disk', plan: PLAN });
    const key: string = created.body.api_keys[0];
    expect((await call('GET', '/api/v1/models', undefined, key)).status).toBe(200);
    const files = readdirSync(dataDir).filter((name) => name.startsWith('state.sqlite'));
    expect(files).toContain('state.sqlite');
    for (const name of files) {
      const bytes = readFileSync(path.join(dataDir, name));
      expect(bytes.includes(Buffer.from(key)), name).toBe(false);
      // The seed's well-known keys are hashed when loaded, too.
      expect(bytes.includes(Buffer.from('sk_test_tiny_')), name).toBe(false);
    }
  });

  it('revokes a key: the next request with it answers 401, the other key still works', async () => {
    const created = await call('POST', '/__mock/organizations', { name: 'Rotating', plan: PLAN });
    const orgId: string = created.body.id;
    const old: string = created.body.api_keys[0];
    const oldId: string = created.body.keys[0].id;
    const fresh = (await call('POST', `/__mock/organizations/${orgId}/keys`)).body.api_key as string;
    expect((await call('GET', '/api/v1/models', undefined, old)).status).toBe(200);

    const revoked = await call('DELETE', `/__mock/organizations/${orgId}/keys/${oldId}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.keys.map((k: { id: string }) => k.id)).not.toContain(oldId);
    expect((await call('GET', '/api/v1/models', undefined, old)).status).toBe(401);
    expect((await call('GET', '/api/v1/models', undefined, fresh)).status).toBe(200);
    expect((await call('DELETE', `/__mock/organizations/${orgId}/keys/${oldId}`)).status).toBe(404);
    expect(
      (await call('DELETE', `/__mock/organizations/${orgId}/keys/${oldId}`, undefined, null)).status,
    ).toBe(401);
  });

  it("refuses to revoke another organization's key by its id", async () => {
    const one = await call('POST', '/__mock/organizations', { name: 'One', plan: PLAN });
    const two = await call('POST', '/__mock/organizations', { name: 'Two', plan: PLAN });
    const answer = await call('DELETE', `/__mock/organizations/${two.body.id}/keys/${one.body.keys[0].id}`);
    expect(answer.status).toBe(404);
    expect((await call('GET', '/api/v1/models', undefined, one.body.api_keys[0])).status).toBe(200);
  });
});
