/**
 * API keys are secrets: the mock keeps only their SHA-256 (and a short prefix to tell them apart).
 * A key is 128 random bits, so a fast unsalted hash is the right tool: nobody can guess a key from
 * its hash, and a password-hashing function (scrypt, argon2), built for guessable passwords, would
 * only add milliseconds to every request. No pepper either: a server-side secret would sit in the
 * same data folder as the hashes, and would break the data folder's portability for nothing.
 *
 *   newApiKey()           a fresh key, shown once to whoever created it
 *   apiKeyRecord(key)     what is stored of it: its hash, an id derived from the hash, a prefix
 *   hashApiKey(key)       the hash a presented key is looked up by
 *   sameKeyHash(a, b)     compares two hashes in constant time
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

export interface ApiKeyRecord {
  /** `key_` and 16 hex digits of the hash: names the key in listings and in revoke, reveals nothing. */
  id: string;
  /** The key's first characters, for a person to recognize it. */
  prefix: string;
  /** SHA-256 of the key, hex. */
  hash: string;
}

export const KEY_PREFIX_LENGTH = 12;

export function newApiKey(): string {
  return `sk_test_${randomBytes(16).toString('hex')}`;
}

export function hashApiKey(key: string): string {
  // One-shot: no Hash object per call, about a third of this function's time on every request.
  return hash('sha256', key, 'hex');
}

export function keyIdOf(hash: string): string {
  return `key_${hash.slice(0, 16)}`;
}

export function apiKeyRecord(key: string): ApiKeyRecord {
  const hash = hashApiKey(key);
  return { id: keyIdOf(hash), prefix: key.slice(0, KEY_PREFIX_LENGTH), hash };
}

export function sameKeyHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
