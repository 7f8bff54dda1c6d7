import { describe, expect, it } from 'vitest';
import { CASE_ARMING, type ArmingContext } from './case-arming.js';
import type { JournalEntry } from './journal-entry.js';

describe('share-revoked arming', () => {
  it('does not act on a share the client removed before the watcher came (its image deleted)', async () => {
    const ctx = { api: async () => new Response(null, { status: 404 }) } as unknown as ArmingContext;
    const created = {
      operation_id: 'createShare',
      status: 201,
      response_body: { id: 'fcbf8d13-e3d9-494e-9bb2-0324ae8793bc' },
    } as JournalEntry;
    await expect(CASE_ARMING['share-revoked'].onEntry?.(created, ctx)).resolves.toBe(false);
  });
});
