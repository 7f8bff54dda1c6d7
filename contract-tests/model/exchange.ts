import type { TiffLayout } from './tiff-layout.js';

/**
 * What the oracle reads: one request and its answer, as plain data. The harness's HTTP client
 * builds one for every answer a check receives; nothing here knows of HTTP clients or of a target.
 */
export interface Exchange {
  /** The document's operationId, or the client's label for a request outside it. */
  operationId: string;
  method: string;
  url: string;
  /** Path parameters as the check filled them (empty for a request sent by URL). */
  params: Record<string, string>;
  /** The bearer key sent; null when no Authorization header went; undefined for a raw header. */
  key: string | null | undefined;
  /** What went before the key where it is not `Bearer ` (`bearer `, or `Bearer` and two spaces or a tab), judged by AUTH-07 (oracle.ts). */
  scheme?: string;
  /** An Authorization header went that carries no `Bearer <token>`: another scheme, no space after Bearer, the key alone. */
  otherScheme?: boolean;
  /** The JSON body sent, parsed; for a multipart upload, the file's name and size. */
  sent?: unknown;
  /** How many bytes the body held, when it was sent as bytes (a part PUT). */
  sentBytes?: number;
  /** The request's own headers (names in lower case), the credential left out. */
  sentHeaders?: Record<string, string>;
  sentAt: number;
  receivedAt: number;
  status: number;
  /** Response headers, names in lower case. */
  headers: Record<string, string>;
  /** Parsed JSON when the answer was JSON, else its bytes. */
  body: unknown;
  bytes: Buffer;
  /** The check asked the control plane for this status: it says nothing of the interface. */
  injected?: boolean;
}

/** A multipart upload's file, as the oracle needs it. */
export interface SentFile {
  /** `layout`: the pages, size and samples its TIFF directories declare, where they are plain (tiff-layout.ts). */
  file: { name: string; size: number; layout?: TiffLayout };
}

/** One answer that disagrees with what the interface determines. */
export interface Finding {
  /** The interface's sentence (or the document's, for an assumed choice) the answer breaks. */
  sentence: string;
  /** What was compared: the operation and the field or header. */
  subject: string;
  predicted: string;
  received: string;
  /**
   * The one clause the finding belongs to, where its rule is judged by that clause's check alone
   * (a rule of the document's that other checks meet by the way): only a check that names the
   * clause reports it. None: every check that made the exchange reports it.
   */
  clause?: string;
}

export const describeFinding = (f: Finding): string =>
  `${f.subject}: predicted ${f.predicted}, received ${f.received} (interface: "${f.sentence}")`;

/** Clocks of a client and a target differ: a timestamp is judged against the client's, this far either way. */
export const CLOCK_SKEW_MS = 5 * 60_000;

export type Json = Record<string, unknown>;

export const isObject = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * A UUID, its hex digits in either case, with or without the `urn:uuid:` prefix `format: uuid`
 * accepts (document, x-http-conventions.ids). The prefix in lower case only: pydantic, which a
 * FastAPI production validates with, takes no other spelling of it, so neither is judged a UUID.
 */
const UUID = /^(?:urn:uuid:)?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const isUuid = (x: unknown): x is string => typeof x === 'string' && UUID.test(x);

/** An id as every response carries it, and as the model keys what it names: lower case, no `urn:uuid:`. */
export const canonicalId = (id: string): string => id.replace(/^urn:uuid:/, '').toLowerCase();

/** An id with the prefix in another case (`URN:UUID:`): one the document and pydantic disagree on, so left unjudged. */
export const prefixInOtherCase = (x: unknown): boolean =>
  typeof x === 'string' && /^urn:uuid:/i.test(x) && !x.startsWith('urn:uuid:');

export const show = (x: unknown): string => (x === undefined ? 'nothing' : JSON.stringify(x));

/** A finding when `received` is not `predicted` (compared as JSON). */
export function compare(
  findings: Finding[],
  sentence: string,
  subject: string,
  predicted: unknown,
  received: unknown,
): void {
  if (JSON.stringify(predicted) !== JSON.stringify(received))
    findings.push({ sentence, subject, predicted: show(predicted), received: show(received) });
}

/** A finding when the status is none of `allowed`. */
export function expectStatus(findings: Finding[], sentence: string, x: Exchange, allowed: number[]): boolean {
  if (allowed.includes(x.status)) return true;
  findings.push({
    sentence,
    subject: `${x.operationId} status`,
    predicted: allowed.join(' or '),
    received: String(x.status),
  });
  return false;
}

/** Which 404 an answer is: for an id nobody has, or for another organization's id. */
export type NotFoundAnswerIn = 'missing' | 'foreign';

const LIMIT_402 =
  '402: storage cap reached (upload, image-record creation); monthly analysis cap reached (predict). detail is a human-readable explanation of the limit';

/** What the model knows of the organization's limit: its cap, its count, its requests in flight. */
export interface KnownLimit {
  cap: number;
  used: number;
  pending: number;
}

/**
 * A 402's detail explains the limit the operation can reach (upload: the storage cap; predict: the
 * monthly analysis cap): one that names the other limit explains the wrong thing. When the model
 * knows the organization's cap and count, a number of the limit's units the detail states (`3
 * images`, `2 analyses`) is one of them, or what is left, or the one refused (the counts give or
 * take its requests still in flight): any other explains a limit the organization does not have
 * (another plan's, a default one).
 */
export function limitNamed(
  findings: Finding[],
  x: Exchange,
  limit: 'storage' | 'analyses',
  known?: KnownLimit,
): void {
  const detail = isObject(x.body) && typeof x.body.detail === 'string' ? x.body.detail : undefined;
  if (x.status !== 402 || detail === undefined) return;
  const other =
    limit === 'storage' ? /analys|monthly|per month|prediction/i : /storage|stored|images? (cap|limit)/i;
  const predicted = limit === 'storage' ? 'the storage cap' : 'the monthly analysis cap';
  const subject = `${x.operationId} 402 detail`;
  const received = JSON.stringify(detail);
  if (other.test(detail)) findings.push({ sentence: LIMIT_402, subject, predicted, received });
  if (!known) return;
  const units = limit === 'storage' ? /\b(\d+)\s+images?\b/gi : /\b(\d+)\s+analys[ie]s\b/gi;
  for (const [stated, count] of detail.matchAll(units)) {
    const n = Number(count);
    // honest counts besides the cap and the count: what is left ("0 analyses left") and the one
    // refused ("uploading 1 image would pass the cap"); a larger other count is another plan's
    const left = Math.max(0, known.cap - known.used);
    if (n === known.cap || n === 1 || Math.abs(n - known.used) <= known.pending) continue;
    if (Math.abs(n - left) <= known.pending) continue;
    findings.push({
      sentence: `${LIMIT_402} (the organization's own limit)`,
      subject: `${subject}: ${stated}`,
      predicted: `${predicted} of ${known.cap}, or the ${known.used} used`,
      received,
    });
  }
}
