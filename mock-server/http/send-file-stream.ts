import type { ReadStream } from 'node:fs';
import { pipeline } from 'node:stream';
import type { ServerResponse } from 'node:http';

/**
 * Sends a file's stream as the response body, and closes the file however the response ends.
 * `.pipe(res)` leaves the file open when the client stops reading and goes away (the source is
 * unpiped, not destroyed): each such request would hold a descriptor until garbage collection,
 * and a client could open them faster than that. A file that cannot be read ends the response.
 */
export function sendFileStream(file: ReadStream, res: ServerResponse): void {
  pipeline(file, res, (err) => {
    if (err) res.destroy();
  });
}
