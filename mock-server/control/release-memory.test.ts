import { describe, expect, it } from 'vitest';
import { releaseMemory } from './release-memory.js';

describe('releaseMemory', () => {
  it('runs a full collection even though the test runner has no --expose-gc', async () => {
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    let ref: WeakRef<object> | undefined;
    (() => {
      ref = new WeakRef({ payload: new Array(1000).fill('garbage') });
    })();
    // A WeakRef keeps its target alive until the job that made it ends.
    await new Promise((resolve) => setImmediate(resolve));
    expect(ref!.deref()).toBeDefined();
    await releaseMemory();
    expect(ref!.deref()).toBeUndefined();
  });
});
