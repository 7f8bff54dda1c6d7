/**
 * The CORS check on a real target spends none of the organization's analyses: the export routes
 * are asked for a segmentation nobody has, and a segmentation is made only in a throw-away
 * organization, where the control plane makes one.
 */
import { expect, it, vi } from 'vitest';
import type { CheckContext } from '../harness/check.js';
import { targetFromEnv } from '../harness/target.js';

const bodies: Array<(ctx: CheckContext) => Promise<void>> = [];
vi.mock('../harness/check.js', () => ({
  check: (_title: string, _options: unknown, body: (ctx: CheckContext) => Promise<void>) => bodies.push(body),
}));
const segmented = vi.hoisted(() => ({ by: [] as unknown[] }));
vi.mock('../harness/flows.js', () => ({
  trackImage: () => {},
  completedSegmentation: async (_ctx: unknown, _bytes: unknown, client: unknown) => {
    segmented.by.push(client);
    return { segmentationId: 'made-for-the-check' };
  },
}));
const throwaway = vi.hoisted(() => ({ client: { name: 'throw-away organization' } as unknown }));
vi.mock('../harness/control-plane.js', () => ({
  throwawayOrganization: async () => ({ client: throwaway.client }),
}));

/** A client that answers every request as the check needs, and keeps the exports it was asked. */
function recordingClient(exports: string[]) {
  const call = async (operationId: string, options: { params?: Record<string, string> }) => {
    if (operationId.startsWith('export')) exports.push(options.params!.segmentation_id);
    return {
      status: 200,
      body: { image: { id: 'image-1' }, upload: { urls: [{ url: 'http://target/part/1' }] } },
      request: { method: 'POST', path: '/', url: '', label: operationId },
    };
  };
  return { call, raw: async () => new Response(null, { status: 200 }) };
}

async function run(
  env: Record<string, string>,
): Promise<{ exports: string[]; exportsOfThrowaway: string[] }> {
  await import('./cors.check.js');
  segmented.by = [];
  const exports: string[] = [];
  const exportsOfThrowaway: string[] = [];
  throwaway.client = recordingClient(exportsOfThrowaway);
  const target = targetFromEnv({ CONTRACT_API_KEY: 'sk_test_cors', ...env }, 'http://127.0.0.1:1');
  await bodies[0]!({ target, api: recordingClient(exports) } as unknown as CheckContext);
  return { exports, exportsOfThrowaway };
}

it('asks the export routes for an id nobody has on production, and makes no segmentation', async () => {
  const { exports } = await run({ CONTRACT_PROFILE: 'production' });
  expect(segmented.by).toEqual([]);
  expect(exports).toHaveLength(4);
  expect(new Set(exports).size).toBe(1);
  expect(exports[0]).toMatch(/^[0-9a-f-]{36}$/);
});

it("segments in a throw-away organization where the control plane is enabled, and exports that organization's", async () => {
  const { exports, exportsOfThrowaway } = await run({
    CONTRACT_PROFILE: 'production',
    CONTRACT_ENABLE: 'control',
  });
  expect(segmented.by).toEqual([throwaway.client]);
  expect(exports).toEqual([]);
  expect(exportsOfThrowaway).toEqual(Array(4).fill('made-for-the-check'));
});
