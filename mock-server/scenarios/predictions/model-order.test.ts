import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME_KEY, ACME_ORG, BETA_KEY, apiClient } from '../../../test-support/api-client.js';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import type { RunningMock } from '../../server.js';
import type { ModelRecord } from '../../domain/models/model-record.js';

let mock: RunningMock;
beforeAll(async () => {
  mock = await startInstantMock();
});
afterAll(() => mock.close());

const engine: ModelRecord['engine'] = { kind: 'remote', url: 'http://127.0.0.1:9', timeoutMs: 1, params: {} };

describe('GET /models order', () => {
  it('lists base models first, then the organization own, each by name in code-point order', async () => {
    // Names whose order differs between code points and a locale's collation: upper case sorts first.
    const added: ModelRecord[] = [
      {
        id: '0b9c7a52-1f3e-4d6a-8b2c-000000000001',
        name: 'zz-base',
        version: '1',
        description: '',
        scope: 'base',
        engine,
      },
      {
        id: '0b9c7a52-1f3e-4d6a-8b2c-000000000002',
        name: 'Zebra-base',
        version: '1',
        description: '',
        scope: 'base',
        engine,
      },
      {
        id: '0b9c7a52-1f3e-4d6a-8b2c-000000000003',
        name: 'Apple-custom',
        version: '1',
        description: '',
        scope: 'custom',
        organizationId: ACME_ORG,
        engine,
      },
    ];
    for (const model of added) await mock.services.state.models.add(model);
    const client = apiClient(mock.url);
    const names = (key: string) =>
      client
        .call('GET', '/api/v1/models', undefined, key)
        .then((r) => (r.body as Array<{ name: string }>).map((m) => m.name));

    const acme = await names(ACME_KEY);
    const base = acme.filter((n) => !n.includes('custom') && n !== 'acme-hela-nuclei-v2');
    expect(acme.slice(0, base.length)).toEqual(base);
    expect(base).toEqual([...base].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(base.indexOf('Zebra-base')).toBeLessThan(base.indexOf('brightfield-dark-cells'));
    expect(base.at(-1)).toBe('zz-base');
    expect(acme.slice(base.length)).toEqual(['Apple-custom', 'acme-hela-nuclei-v2']);
    // another organization sees the base models in the same order, and none of Acme's own
    const beta = await names(BETA_KEY);
    expect(beta.slice(0, base.length)).toEqual(base);
    expect(beta).not.toContain('Apple-custom');
  });
});
