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

describe('part-url-expired arming', () => {
  it('moves the clock when a resumable upload opens, by POST /upload {name, size} as by createImage', async () => {
    const moved: unknown[] = [];
    const ctx = {
      control: async (_method: string, _path: string, body: unknown) => moved.push(body),
      presignExpirySeconds: 600,
    } as unknown as ArmingContext;
    const answered = (operation_id: string, upload: unknown) =>
      ({ operation_id, status: 200, response_body: { image: {}, upload } }) as JournalEntry;
    const onEntry = CASE_ARMING['part-url-expired'].onEntry!;
    await expect(onEntry(answered('uploadImage', null), ctx)).resolves.toBe(false);
    await expect(onEntry(answered('uploadImage', { urls: [] }), ctx)).resolves.toBe(true);
    await expect(onEntry(answered('createImage', { urls: [] }), ctx)).resolves.toBe(true);
    expect(moved).toEqual([{ advance_ms: 660_000 }, { advance_ms: 660_000 }]);
  });
});
