import { expect, it } from 'vitest';
import { bodyWithin } from './check-deadline.js';

it("cuts a body that never ends at the check's deadline, and lets one that ends pass", async () => {
  await expect(bodyWithin(new Promise(() => {}), 50)).rejects.toThrow(
    /^the check did not end within 50 ms \(its timeout less 20000 ms kept for its cleanup\) and was cut there$/,
  );
  await expect(bodyWithin(Promise.resolve(), 50)).resolves.toBeUndefined();
});
