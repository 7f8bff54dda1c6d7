import { describe, expect, it } from 'vitest';
import { isAdminToken } from './bearer-auth.js';

describe('isAdminToken', () => {
  it('accepts exactly "Bearer <token>"', () => {
    expect(isAdminToken('Bearer s3cret-token', 's3cret-token')).toBe(true);
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
