import type { Request } from 'express';

export type JsonBody =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'invalid'; message: string }
  | { kind: 'too_large' };

/**
 * Reads and parses a JSON body, up to `limit` bytes; an absent or empty body is `none`. Past the
 * limit it stops reading and answers `too_large`; the caller answers with `Connection: close`, so
 * the unread rest never poisons a kept-alive connection.
 */
export function readJsonBody(req: Request, limit: number): Promise<JsonBody> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        resolve({ kind: 'too_large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') return resolve({ kind: 'none' });
      try {
        resolve({ kind: 'json', value: JSON.parse(text) });
      } catch (err) {
        resolve({ kind: 'invalid', message: (err as Error).message });
      }
    };
    const onError = (err: Error) => {
      cleanup();
      resolve({ kind: 'invalid', message: err.message });
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

export function mediaType(req: Request): string {
  return String(req.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
}

export function isJsonMediaType(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json');
}
