import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

/**
 * Sends a body whose length the answer already declared (Content-Length), handing its last chunk
 * to `res.end`. A client holds the whole answer once that many bytes arrive and may close at once;
 * piped, `end()` comes only after the source's next read finds its end, so the connection could
 * close on a response that never finished: journaled as no answer (status 0) though the client had
 * every byte, and left out of the partner's recorded contract. A source shorter than declared
 * destroys the response, so the client sees a broken answer rather than a short one; a longer one
 * is cut at the declared length.
 */
export async function sendSizedBody(
  body: NodeJS.ReadableStream,
  res: ServerResponse,
  size: number,
): Promise<void> {
  let sent = 0;
  try {
    for await (const read of body as AsyncIterable<Buffer | string>) {
      if (res.destroyed) return;
      const chunk = typeof read === 'string' ? Buffer.from(read) : read;
      sent += chunk.length;
      if (sent >= size) {
        // Never past the declared length: bytes after it would be read as the next response.
        res.end(chunk.subarray(0, chunk.length - (sent - size)));
        return;
      }
      if (!res.write(chunk) && !(await drained(res))) return;
    }
    if (size === 0) res.end();
    else res.destroy(new Error(`the body ended after ${sent} of ${size} bytes`));
  } finally {
    (body as Partial<Readable>).destroy?.();
  }
}

/** True once the response takes writes again; false if it closed first (the client went away). */
function drained(res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const settle = (ok: boolean) => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = () => settle(true);
    const onClose = () => settle(false);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}
