import { describe, expect, it } from 'vitest';
import { sentCredential } from './api-client.js';

describe('the credential the oracle is told of', () => {
  it('reads the key of a Bearer header in any case, with more spaces, and as fetch sends it (trailing whitespace stripped)', () => {
    expect(sentCredential('sk_a')).toEqual({ key: 'sk_a' });
    expect(sentCredential(null)).toEqual({ key: null });
    expect(sentCredential('!Bearer sk_a')).toEqual({ key: 'sk_a' });
    expect(sentCredential('!bearer sk_a')).toEqual({ key: 'sk_a', scheme: 'bearer' });
    expect(sentCredential('!Bearer  sk_a')).toEqual({ key: 'sk_a', scheme: 'Bearer ' });
    expect(sentCredential('!Bearer sk_a ')).toEqual({ key: 'sk_a' });
    expect(sentCredential('!Bearer sk_a\n')).toEqual({ key: 'sk_a' });
  });

  it('tells a header of another scheme, with no space after Bearer, the key alone or Bearer alone apart', () => {
    for (const header of ['Basic c2tfYTo=', 'Token sk_a', 'Bearersk_a', 'sk_a', 'Bearer', 'Bearer  '])
      expect(sentCredential(`!${header}`), header).toEqual({ key: undefined, otherScheme: true });
  });
});
