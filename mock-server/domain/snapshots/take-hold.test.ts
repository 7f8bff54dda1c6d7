import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { expect, it } from 'vitest';
import { heldUntilRead } from './take-hold.js';

const chunks = () => Readable.from([Buffer.alloc(100), Buffer.alloc(100), Buffer.alloc(50)]);

it('frees the place before the last byte is written on', async () => {
  let released = false;
  const seen: boolean[] = [];
  const answer = new Writable({
    write(chunk, _encoding, done) {
      seen.push(released);
      done();
    },
  });
  await pipeline(
    heldUntilRead(chunks(), 250, () => (released = true), 1000),
    answer,
  );
  expect(seen).toEqual([false, false, true]);
});

it('cuts an answer not read for the stall bound, and frees its place', async () => {
  let released = false;
  // A client that stopped reading: nothing written is ever taken.
  const stalled = new Writable({ highWaterMark: 1, write() {} });
  const started = Date.now();
  const cut = await pipeline(
    heldUntilRead(chunks(), 250, () => (released = true), 150),
    stalled,
  ).catch((error: Error) => error);
  expect((cut as Error).message).toMatch(/not read for 150 ms \(--idle-timeout-ms\)/);
  expect(released).toBe(true);
  expect(Date.now() - started).toBeGreaterThanOrEqual(140);
});
