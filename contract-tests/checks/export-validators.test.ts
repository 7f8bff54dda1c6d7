/**
 * EXP-11's check where no second segmentation can be had: what needs it did not run, and the
 * check says so (skipped with the reason) instead of passing as if another file's tags were compared.
 */
import { expect, it, vi } from 'vitest';
import type { CheckContext } from '../harness/check.js';

const bodies: Array<(ctx: CheckContext) => Promise<void>> = [];
vi.mock('../harness/check.js', () => ({
  check: (_title: string, _options: unknown, body: (ctx: CheckContext) => Promise<void>) => bodies.push(body),
}));
vi.mock('../harness/flows.js', () => ({
  completedSegmentation: async () => ({ segmentationId: 's1' }),
  secondSegmentation: async () => undefined,
  newShare: async () => ({ id: 'sh1', url: 'http://target/share/t' }),
}));
vi.mock('../harness/sample-images.js', () => ({ presetTiff: () => ({ bytes: Buffer.alloc(0) }) }));

const request = (label: string) => ({ method: 'GET', path: '/', url: '', label });

/**
 * A target that tags each export (and each overlay colour) and honours every validator, and shares
 * the segmentation and revokes its share.
 */
const call = async (operationId: string, options: { headers?: Record<string, string>; query?: object }) => {
  if (operationId === 'revokeShare')
    return { status: 200, body: { id: 'sh1', url: 'http://target/share/t' }, request: request(operationId) };
  const etag = `"${operationId}-${JSON.stringify(options.query ?? {})}"`;
  const conditional = options.headers?.['if-none-match'] !== undefined;
  return {
    status: conditional ? 304 : 200,
    headers: new Headers({ etag }),
    bytes: Buffer.alloc(conditional ? 0 : 1),
    request: request(operationId),
  };
};
const raw = async () => ({ status: 200, headers: new Headers(), request: request('share page') });

it('skips, saying so, when no second segmentation completed, and the rest passed', async () => {
  await import('./export-validators.check.js');
  const skip = vi.fn((reason: string) => {
    throw new Error(`skipped: ${reason}`);
  });
  const ctx = { api: { call, raw, violations: [] }, skip } as unknown as CheckContext;
  await expect(bodies[0]!(ctx)).rejects.toThrow(/skipped: no second segmentation .* not compared/);
  expect(skip).toHaveBeenCalledTimes(1);
});
