import { describe, expect, it } from 'vitest';
import { testExchange as exchange } from './exchange-fixture.js';
import { leniently } from './internal-paths.js';
import { Oracle } from './oracle.js';

const KEY = 'sk_main';

describe('a valid key on an endpoint outside the public surface, however its path is spelled', () => {
  const served = (oracle: Oracle, method: string, path: string, status: number, key: string | null = KEY) =>
    oracle.observe(exchange(`${method} ${path}`, status, {}, { method, url: `http://target${path}`, key }));

  it('is never served: a 2xx to any spelling a router takes for the path is a finding', () => {
    const oracle = new Oracle();
    oracle.knowKeys({ main: KEY });
    for (const path of [
      '/api/v1/organizations/',
      '/api/v1//organizations',
      '/api/v1/Organizations',
      '/api/v1/%6Frganizations',
      '/api/v1/api-keys/',
      '/api/v1/models/078e62ee-4b5a-4a1e-8322-01910425db58/train/',
    ]) {
      const method = path.includes('organizations') ? 'GET' : 'POST';
      expect(served(oracle, method, path, 200)[0]?.predicted, path).toMatch(/^not 2xx/);
      // refused, unknown, or redirected to the path: each leaves the endpoint unserved
      for (const status of [403, 404, 307])
        expect(served(oracle, method, path, status), `${path} ${status}`).toEqual([]);
    }
  });

  it('leaves public routes, keys it does not know and a target mounted elsewhere alone', () => {
    const oracle = new Oracle();
    oracle.knowKeys({ main: KEY });
    expect(served(oracle, 'GET', '/api/v1/organization-chart', 200)).toEqual([]);
    expect(served(oracle, 'GET', '/api/v1/organizations/', 200, 'sk_unknown_to_the_oracle')).toEqual([]);
    oracle.knowBase('http://target/cellseg');
    expect(served(oracle, 'GET', '/api/v1/organizations/', 200)).toEqual([]);
    expect(served(oracle, 'GET', '/cellseg/api/v1/organizations/', 200)).toHaveLength(1);
  });

  it('reads a path as a lenient router does', () => {
    expect(leniently('/API/v1//Organizations/')).toBe('/api/v1/organizations');
    expect(leniently('/api/v1/%4Frganizations')).toBe('/api/v1/organizations');
    expect(leniently('/api/v1/%E0%A4%A')).toBe('/api/v1/%e0%a4%a');
  });
});
