/**
 * Requests whose body is big: the file of a single-request upload, a part. A mock that refuses the
 * body (413 too large, 507 disk full) answers before reading it and closes the connection on
 * purpose, so the client's next write fails with EPIPE or a reset while the answer is already on
 * its way. fetch reports such a request as "fetch failed (EPIPE)" and loses the answer; this client
 * keeps writing errors apart and settles on the answer when one comes, so a section can say why the
 * mock refused instead of failing on a broken pipe. Each request opens its own connection (see
 * `agent: false` below): a reused one the mock had closed meanwhile broke the limits section too.
 */
import { createReadStream } from 'node:fs';
import http from 'node:http';
import type { Readable } from 'node:stream';

export interface Answer {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** What the body is: bytes in memory, or a range of a file streamed from disk. */
export type BodySource =
  { bytes: Uint8Array } | { file: string; start: number; end: number; head?: Buffer; tail?: Buffer };

function bodyLength(source: BodySource): number {
  if ('bytes' in source) return source.bytes.length;
  return (source.head?.length ?? 0) + (source.end - source.start + 1) + (source.tail?.length ?? 0);
}

/** Sends one request with `source` as its body and answers the response, even one sent before the body ended. */
export function sendBody(
  url: string,
  method: string,
  headers: Record<string, string>,
  source: BodySource,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let writeError: Error | undefined;
    let answered = false;
    const req = http.request(
      url,
      // A connection of its own, never one kept alive from an earlier request: after the bench
      // renders an image (seconds of synchronous work) the mock may have closed that connection
      // for idleness, and the closing not yet be seen, so the body would go down a dead socket.
      { method, headers: { ...headers, 'content-length': String(bodyLength(source)) }, agent: false },
      (res) => {
        answered = true;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
        res.on('error', reject);
      },
    );
    // A write that fails after the mock answered (or while its answer is still arriving) is the
    // refusal working as designed; only a connection that closes with no answer at all is a failure.
    req.on('error', (err) => (writeError ??= err));
    req.on('close', () => {
      if (!answered) reject(noAnswer(writeError ?? new Error('closed')));
    });
    if ('bytes' in source) {
      req.end(source.bytes);
      return;
    }
    if (source.head) req.write(source.head);
    const file: Readable = createReadStream(source.file, {
      start: source.start,
      end: source.end,
      highWaterMark: 1 << 20,
    });
    file.on('error', (err) => {
      req.destroy(err);
      reject(err);
    });
    file.pipe(req, { end: false });
    file.on('end', () => req.end(source.tail));
    // Stop reading the file once the request cannot take more.
    req.on('close', () => file.destroy());
  });
}

/**
 * A single-request upload (multipart/form-data, one `file` part) of `source`; answers the image's
 * id, or throws the mock's refusal with its status and detail.
 */
export async function multipartUpload(
  base: string,
  key: string,
  name: string,
  source: { bytes: Uint8Array } | { file: string; size: number },
): Promise<{ id: string; upload_status: string; upload_error?: string | null }> {
  const boundary = `----bench${Date.now().toString(16)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
      'Content-Type: image/tiff\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const res = await sendBody(
    `${base}/api/v1/upload`,
    'POST',
    { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    'bytes' in source
      ? { bytes: Buffer.concat([head, source.bytes, tail]) }
      : { file: source.file, start: 0, end: source.size - 1, head, tail },
  );
  if (res.status !== 200)
    throw new Error(`the mock refused the upload of ${name}: ${res.status} ${res.body.slice(0, 300)}`);
  return (
    JSON.parse(res.body) as { image: { id: string; upload_status: string; upload_error?: string | null } }
  ).image;
}

function noAnswer(cause: Error): Error {
  const code = (cause as NodeJS.ErrnoException).code ?? cause.message;
  return new Error(
    `the mock closed the connection before answering, while the body was being sent (${code})`,
    {
      cause,
    },
  );
}
