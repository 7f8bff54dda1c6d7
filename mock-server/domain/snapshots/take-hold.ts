/**
 * How long a snapshot take holds its place (snapshot-service.ts): until the last byte of its
 * archive is handed on, so a client that has the whole answer finds the place free for its next
 * take; or until the stream closes (given up, cut). A take whose answer makes no progress for
 * `stallMs` (a client that stopped reading) is cut: its stream is destroyed, and the answer with it.
 */
import type { Readable } from 'node:stream';

export function heldUntilRead(
  stream: NodeJS.ReadableStream,
  size: number,
  release: () => void,
  stallMs: number,
): NodeJS.ReadableStream {
  const readable = stream as Readable;
  let handed = 0;
  let timer: NodeJS.Timeout | undefined;
  const done = () => {
    clearTimeout(timer);
    release();
  };
  const watch = () => {
    clearTimeout(timer);
    timer = setTimeout(
      () =>
        readable.destroy(
          new Error(`The snapshot's answer was not read for ${stallMs} ms (--idle-timeout-ms): cut.`),
        ),
      stallMs,
    );
  };
  // Listeners see each chunk before it is written on (they were added first): the place is free
  // before the last byte goes out.
  readable.on('data', (chunk: Buffer) => {
    handed += chunk.length;
    if (handed >= size) done();
    else watch();
  });
  readable.once('close', done);
  watch();
  return readable;
}
