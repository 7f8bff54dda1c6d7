import type { Request, Response } from 'express';

const DRAIN_BYTES = 8 * 1024 * 1024;
const DRAIN_MS = 10_000;

/**
 * After answering a request whose body was not read (too large, wrong type), the connection is
 * closed, but not at once: closing a socket with unread bytes makes the kernel send a reset that
 * can destroy the answer before the client reads it, and a client blocked writing its body would
 * never read it either. So the rest is read and dropped, up to a few MB or seconds, then the socket
 * is closed whatever is left: a client cannot hold a connection (nor a graceful stop) with it.
 */
export function discardRestThenClose(req: Request, res: Response): void {
  if (req.complete) return;
  res.setHeader('Connection', 'close');
  let drained = 0;
  const socket = req.socket;
  const timer = setTimeout(() => socket.destroy(), DRAIN_MS);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_BYTES) socket.destroy();
  });
  req.on('error', () => undefined);
  socket.once('close', () => clearTimeout(timer));
  req.resume();
}
