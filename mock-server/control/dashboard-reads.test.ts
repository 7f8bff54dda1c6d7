import { expect, it } from 'vitest';
import type { ImageRecord } from '../domain/images/image-record.js';
import { DashboardReads } from './dashboard-reads.js';

it('lists the newest images of an organization that holds 200,000, without overflowing the stack', async () => {
  const ids = Array.from({ length: 200_000 }, (_, i) => `img-${i}`);
  const image = (id: string) =>
    ({
      id,
      createdAt: new Date(Date.UTC(2026, 10, 29) + Number(id.slice(4))).toISOString(),
    }) as unknown as ImageRecord;
  const state = {
    organizations: { get: async () => ({ id: 'org' }) },
    images: { idsOf: async () => ids, get: async (id: string) => image(id) },
    predictions: { idsOfImage: async () => [] },
  } as unknown as ConstructorParameters<typeof DashboardReads>[0];
  const listed = await new DashboardReads(state).images('org', '3');
  expect(listed.map((entry) => entry.image.id)).toEqual(['img-199999', 'img-199998', 'img-199997']);
});
