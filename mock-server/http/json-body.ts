import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { finished } from 'node:stream/promises';
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
  /** `length`: the body's text in characters. */
  | { kind: 'json'; value: unknown; length: number }
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
export async function readJsonBody(req: IncomingMessage, limits: JsonBodyLimits): Promise<JsonBody> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > limits.maxBytes) return { kind: 'too_large', limit: limits.maxBytes };
  const chunks: Buffer[] = [];
  let size = 0;
  const tooLarge = new AbortController();
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > limits.maxBytes) tooLarge.abort();
    else chunks.push(chunk);
  };
  req.on('data', onData);
  try {
    await finished(req, { signal: tooLarge.signal });
  } catch (err) {
    if (tooLarge.signal.aborted) return { kind: 'too_large', limit: limits.maxBytes };
    // a socket destroyed mid-body may end the request with 'close' alone: a premature close to Node
    const closed = (err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE';
    return { kind: 'interrupted', message: closed ? 'the connection closed' : (err as Error).message };
  } finally {
    req.off('data', onData);
    // a late error of a connection already answered must not become an uncaught exception
    req.on('error', () => undefined);
  }
  return parseJson(Buffer.concat(chunks), limits);
}

export function parseJson(bytes: Buffer, limits: JsonStructureLimits): JsonBody {
  if (!isUtf8(bytes)) return { kind: 'not_utf8' };
  const text = bytes.toString('utf8');
  if (text.trim() === '') return { kind: 'none' };
  const problem = findStructureProblem(bytes, limits);
  if (problem) return { kind: 'structure', problem };
  try {
    return { kind: 'json', value: JSON.parse(text), length: text.length };
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

/** A JSON object: not an array, not null. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
