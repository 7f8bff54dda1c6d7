import type { Seed } from '../domain/seed.js';
import type { StateStore } from '../domain/state.js';

/**
 * The seed's well-known keys in clear, by organization id, for the banner and startMock: the state
 * keeps only their hashes. Only keys still valid are listed.
 */
export async function seededKeys(state: StateStore, seed: Seed | undefined): Promise<Map<string, string[]>> {
  const keys = new Map<string, string[]>();
  for (const o of seed?.organizations ?? []) {
    const valid = [];
    for (const key of o.api_keys) if ((await state.organizationForKey(key))?.id === o.id) valid.push(key);
    keys.set(o.id, valid);
  }
  return keys;
}
