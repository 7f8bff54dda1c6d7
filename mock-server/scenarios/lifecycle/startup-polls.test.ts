import { describe, expect, it } from 'vitest';
import { freePort, launchMock } from '../../../test-support/launched-mock.js';

const LAUNCHES = 6;
// Long against a loopback answer (milliseconds), short against "never": a request caught between
// listen and the handler being attached used to wait forever.
const CLIENT_TIMEOUT_MS = 15_000;

type Poll = 'refused' | 'hung' | '503 without Retry-After' | number;

async function poll(url: string): Promise<Poll> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
    await response.arrayBuffer();
    if (response.status === 503 && !response.headers.get('retry-after')) return '503 without Retry-After';
    return response.status;
  } catch (err) {
    return (err as Error).name === 'TimeoutError' ? 'hung' : 'refused';
  }
}

describe('start-up', () => {
  it('answers every poll from the first millisecond: refused until the port opens, then 200 (a poll during wiring waits for it); none hangs', async () => {
    const seen: Poll[] = [];
    for (let launch = 0; launch < LAUNCHES; launch++) {
      const port = await freePort();
      const mock = launchMock(process.execPath, ['bin/cellseg-mock.js', 'start', '--port', String(port)]);
      try {
        const url = `http://127.0.0.1:${port}/__mock/health`;
        const began = Date.now();
        for (;;) {
          const result = await poll(url);
          seen.push(result);
          if (result === 'hung')
            console.log(
              `launch ${launch}: hung after ${seen.length} polls, ${Date.now() - began} ms after spawn; output:\n${mock.output()}`,
            );
          if (result === 200 || result === 'hung') break;
          if (result === 'refused') await new Promise((resolve) => setTimeout(resolve, 5));
          if (!mock.treeAlive()) throw new Error(`the mock exited:\n${mock.output()}`);
        }
      } finally {
        mock.child.kill('SIGTERM');
        await mock.exited;
      }
    }
    const count = (what: Poll) => seen.filter((s) => s === what).length;
    console.log(
      `${LAUNCHES} launches: ${count('refused')} refused, ${count(503)} x 503, ${count(200)} x 200, ${count('hung')} hung`,
    );
    expect(seen.filter((s) => s === 'hung')).toEqual([]);
    expect(seen.filter((s) => s === 200)).toHaveLength(LAUNCHES);
    expect(seen.filter((s) => s !== 'refused' && s !== 200)).toEqual([]);
  }, 300_000);
});
