import { describe, expect, it } from 'vitest';
import type { IncomingMessage } from 'node:http';
import type { Organization } from '../domain/organizations.js';
import { authenticate, isAdminToken } from './bearer-auth.js';

const ORG = { id: 'o' } as Organization;

describe('isAdminToken', () => {
  it('accepts exactly "Bearer <token>"', () => {
    expect(isAdminToken('Bearer s3cret-token', 's3cret-token')).toBe(true);
  });

  // The scheme name is case-insensitive on the control plane as on the API (bearerCredentials).
  it.each(['bearer s3cret-token', 'BEARER s3cret-token', 'bEaReR s3cret-token'])('accepts %s', (header) => {
    expect(isAdminToken(header, 's3cret-token')).toBe(true);
  });

  it('reads the header as an API key is read: one rule for both', async () => {
    const headers = [
      'Bearer k',
      'bearer k',
      'BEARER k',
      'Bearer  k ',
      'Basic k',
      'Bearerk',
      'k',
      'Bearer k x',
    ];
    for (const header of headers) {
      const req = { headers: { authorization: header } } as IncomingMessage;
      const asKey = await authenticate(req, {
        organizationForKey: async (key) => (key === 'k' ? ORG : undefined),
      });
      expect([header, isAdminToken(header, 'k')]).toEqual([header, asKey.ok]);
    }
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['a prefix of the token', 'Bearer s3cret'],
    ['the token and more', 'Bearer s3cret-token-and-more'],
    ['another scheme', 'Basic s3cret-token'],
    ['the bare token', 's3cret-token'],
  ])('refuses %s', (_what, header) => {
    expect(isAdminToken(header, 's3cret-token')).toBe(false);
  });
});
