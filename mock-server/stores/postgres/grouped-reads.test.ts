import { describe, expect, it } from 'vitest';
import { GroupedReads } from './grouped-reads.js';

/** A read whose answers the test gives by hand, counting what was sent. */
function handRead() {
  const sent: Array<{ answer(value: number): void; fail(error: Error): void }> = [];
  const reads = new GroupedReads<number>(
    () => new Promise<number>((answer, fail) => sent.push({ answer, fail })),
  );
  return { reads, sent };
}

const turn = () => new Promise((done) => setImmediate(done));

describe('reads grouped per turn, one on its way at a time', () => {
  it('sends one read for everything needed in one turn, after the turn', async () => {
    const { reads, sent } = handRead();
    const asked = [reads.read(), reads.read(), reads.read()];
    expect(sent).toHaveLength(0);
    await turn();
    await turn();
    expect(sent).toHaveLength(1);
    sent[0].answer(7);
    expect(await Promise.all(asked)).toEqual([7, 7, 7]);
  });

  it('never answers a read needed after one was sent with that one', async () => {
    const { reads, sent } = handRead();
    const first = reads.read();
    await turn();
    await turn();
    expect(sent).toHaveLength(1);
    // Needed while the first is on its way: it may have been sent before a write this one must see.
    const second = reads.read();
    const third = reads.read();
    await turn();
    await turn();
    expect(sent).toHaveLength(1);
    sent[0].answer(1);
    expect(await first).toBe(1);
    await turn();
    await turn();
    expect(sent).toHaveLength(2);
    sent[1].answer(2);
    expect(await Promise.all([second, third])).toEqual([2, 2]);
  });

  it('fails only the group whose read failed; the next group sends again', async () => {
    const { reads, sent } = handRead();
    const failed = reads.read();
    await turn();
    await turn();
    const next = reads.read();
    sent[0].fail(new Error('database gone'));
    await expect(failed).rejects.toThrow('database gone');
    await turn();
    await turn();
    expect(sent).toHaveLength(2);
    sent[1].answer(3);
    expect(await next).toBe(3);
  });
});
