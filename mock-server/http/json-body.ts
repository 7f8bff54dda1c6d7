import type { Request } from 'express';

export type JsonBody =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'invalid'; message: string }
  | { kind: 'too_large' };

/** Reads and parses a JSON body, up to `limit` bytes; an absent or empty body is `none`. */
export async function readJsonBody(req: Request, limit: number): Promise<JsonBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return { kind: 'too_large' };
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return { kind: 'none' };
  try {
    return { kind: 'json', value: JSON.parse(text) };
  } catch (err) {
    return { kind: 'invalid', message: (err as Error).message };
  }
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
