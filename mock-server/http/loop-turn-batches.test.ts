/**
 * Requests of one event-loop turn reach the request function together after that turn, in the
 * order they arrived; one the function throws on is ended without stopping the others.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { handledInLoopTurns } from './loop-turn-batches.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

function exchange(name: string) {
  const res = { destroyed: false, destroy: () => (res.destroyed = true) };
  return {
    req: { url: name } as IncomingMessage,
    res: res as unknown as ServerResponse & { destroyed: boolean },
  };
}

describe('requests handled in loop turns', () => {
  it('holds the requests of a turn until it ends, then hands over every one in arrival order', async () => {
    const seen: string[] = [];
    const listener = handledInLoopTurns(
      (req) => seen.push(req.url!),
      () => undefined,
    );
    for (const name of ['a', 'b', 'c']) {
      const { req, res } = exchange(name);
      listener(req, res);
    }
    expect(seen).toEqual([]);
    await turn();
    expect(seen).toEqual(['a', 'b', 'c']);

    // The next turn's requests form a batch of their own.
    const { req, res } = exchange('d');
    listener(req, res);
    await turn();
    expect(seen).toEqual(['a', 'b', 'c', 'd']);
  });

  it('ends a request the function throws on, reports it, and still hands over the ones after it', async () => {
    const seen: string[] = [];
    const escaped: unknown[] = [];
    const listener = handledInLoopTurns(
      (req) => {
        if (req.url === 'bad') throw new Error('escaped the pipeline');
        seen.push(req.url!);
      },
      (err) => escaped.push(err),
    );
    const sent = ['a', 'bad', 'c'].map(exchange);
    for (const { req, res } of sent) listener(req, res);
    await turn();
    expect(seen).toEqual(['a', 'c']);
    expect(sent.map(({ res }) => res.destroyed)).toEqual([false, true, false]);
    expect(escaped).toEqual([new Error('escaped the pipeline')]);
  });
});
