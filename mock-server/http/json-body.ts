import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import {
  findStructureProblem,
  type JsonStructureLimits,
  type JsonStructureProblem,
} from './json-structure.js';

export interface JsonBodyLimits extends JsonStructureLimits {
  /** Largest JSON body read, in bytes. */
  maxBytes: number;
}

export type JsonBody =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  /** `position`: the character where parsing stopped (the end, for a truncated body). */
  | { kind: 'invalid'; message: string; position: number }
  | { kind: 'not_utf8' }
  | { kind: 'structure'; problem: JsonStructureProblem }
  | { kind: 'too_large'; limit: number }
  | { kind: 'interrupted'; message: string };

/**
 * Reads and parses a JSON body within `limits`; an absent or empty body is `none`. Each check runs
 * before the next costlier step: the declared length before reading, the bytes counted while
 * reading, UTF-8 and the nesting/key counts before JSON.parse. Past the size limit it stops keeping
 * bytes; the caller answers and discards the rest (discard-rest.ts).
 */
export function readJsonBody(req: IncomingMessage, limits: JsonBodyLimits): Promise<JsonBody> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > limits.maxBytes) return Promise.resolve({ kind: 'too_large', limit: limits.maxBytes });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      // a late error of a connection already answered must not become an uncaught exception
      req.on('error', () => undefined);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.maxBytes) {
        cleanup();
        resolve({ kind: 'too_large', limit: limits.maxBytes });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(parseJson(Buffer.concat(chunks), limits));
    };
    const onError = (err: Error) => {
      cleanup();
      resolve({ kind: 'interrupted', message: err.message });
    };
    // a socket destroyed mid-body may end the request with 'close' alone: the read must still end
    const onClose = () => {
      cleanup();
      resolve({ kind: 'interrupted', message: 'the connection closed' });
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

export function parseJson(bytes: Buffer, limits: JsonStructureLimits): JsonBody {
  if (!isUtf8(bytes)) return { kind: 'not_utf8' };
  const text = bytes.toString('utf8');
  if (text.trim() === '') return { kind: 'none' };
  const problem = findStructureProblem(bytes, limits);
  if (problem) return { kind: 'structure', problem };
  try {
    return { kind: 'json', value: JSON.parse(text) };
  } catch (err) {
    const message = (err as Error).message;
    const at = /at position (\d+)/.exec(message);
    return { kind: 'invalid', message, position: at ? Number(at[1]) : text.length };
  }
}

export function mediaType(req: IncomingMessage): string {
  return String(req.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
}

export function isJsonMediaType(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json');
}
