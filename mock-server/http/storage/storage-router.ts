import { randomBytes } from 'node:crypto';

import type { IncomingMessage, ServerResponse } from 'node:http';

import type { ApiRequest, ApiResponse } from '../exchange.js';
import type { RequestStage } from '../request-pipeline.js';
import type { RouteSpec } from '../route-table.js';

import { ObjectStoreError, type ObjectStoreErrorCode, type PartReceiver } from '../../domain/object-store.js';
import { OBJECT_STORE_ERROR_STATUS } from './object-store-statuses.js';
import { EXPIRES_PARAM, SIGNATURE_PARAM } from '../../stores/object-store/part-url-signer.js';
import { answerAfterDiscardingRest, DEFAULT_DISCARD_LIMITS, type DiscardLimits } from '../discard-rest.js';
import { decodeSegment } from '../path-segment.js';

/**
 * The S3-like HTTP face of a store that receives its own parts (the embedded store's
 * `partReceiver`): presigned part PUTs, under the path of `storageUrl` (`mountPath`). It reads the
 * raw request stream, so nothing in front of it may read the body.
 *
 * PUT  <mount>/uploads/:uploadId/parts/:partNumber?expires=..&signature=..  -> 200, ETag: "<md5 hex>"
 * OPTIONS                                                                   -> 204, Allow: PUT, OPTIONS
 * CORS (preflights, the exposed ETag) is the app's, in front of this stage (see ../cors.ts).
 * Errors are S3's XML (`<Error><Code/><Message/><RequestId/></Error>`) with S3's status codes; every
 * other path under the mount is S3's NoSuchKey. Paths match without regard to case and with or
 * without a trailing slash, as they did when express routed them: no URL handed out changes meaning.
 */
export function storageStage(
  store: PartReceiver,
  mountPath: string,
  {
    stallTimeoutMs = 120_000,
    discardLimits = DEFAULT_DISCARD_LIMITS,
    largestPart = 0,
    refreshClock = async () => undefined,
  }: {
    stallTimeoutMs?: number;
    discardLimits?: DiscardLimits;
    /** The largest part a plan hands out: read past the discard limit for a part refused for its size. */
    largestPart?: number;
    /** Reads the clock again before a part's expiry is checked (instances sharing a store share it). */
    refreshClock?: () => Promise<void>;
  } = {},
): RequestStage {
  const mount = mountPath.toLowerCase();
  // A part refused after its URL was verified (signed here, not expired) comes from a client the
  // plan was handed to: for its size (400 EntityTooLarge, from its Content-Length), or for an
  // upload deleted, aborted or completed since. Its body is a part's worth of bytes and more, past
  // the discard limit: it is read by the largest part more, so a client one byte past its part
  // reads the refusal, not a broken pipe. Any other refusal (a made-up or expired URL) reads no
  // more than the limit.
  const oversizedPart = { ...discardLimits, maxBytes: discardLimits.maxBytes + largestPart };
  const sendError = (req: IncomingMessage, res: ServerResponse, error: unknown, verified = false) =>
    answerAfterDiscardingRest(req, res, verified ? oversizedPart : discardLimits, () =>
      writeError(req, res, error),
    );

  return function storage(req, res) {
    const lower = req.path.toLowerCase();
    if (lower !== mount && !lower.startsWith(`${mount}/`)) return false;
    const found = PART_ROUTE.exec(req.path.slice(mount.length));
    if (!found)
      return sendError(req, res, new ObjectStoreError('NoSuchKey', 'The specified resource does not exist'));
    const uploadId = decodeSegment(found[1]);
    const partNumber = decodeSegment(found[2]);
    if (uploadId === undefined || partNumber === undefined) {
      const raw = uploadId === undefined ? found[1] : found[2];
      const malformed = `Malformed request: Failed to decode param '${raw}'`;
      return sendError(req, res, new ObjectStoreError('InvalidArgument', malformed));
    }
    req.params = { uploadId, partNumber };
    if (req.method === 'PUT') return putPart(store, req, res, { stallTimeoutMs, refreshClock }, sendError);
    res.setHeader('Allow', 'PUT, OPTIONS');
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return true;
    }
    const message = `The method ${req.method} is not allowed on a part URL; use PUT`;
    return sendError(req, res, new ObjectStoreError('MethodNotAllowed', message));
  };
}

const PART_ROUTE = /^\/uploads\/([^/]+)\/parts\/([^/]+)\/?$/i;

/** The part route under the store's mount path, for the app's route table (405 Allow, CORS preflight). */
export function storageRoutes(mountPath: string): RouteSpec[] {
  return [
    {
      template: `${mountPath}/uploads/{uploadId}/parts/{partNumber}`,
      method: 'PUT',
      headers: ['Content-Type', 'Content-MD5'],
    },
  ];
}

async function putPart(
  store: PartReceiver,
  req: ApiRequest,
  res: ApiResponse,
  { stallTimeoutMs, refreshClock }: { stallTimeoutMs: number; refreshClock: () => Promise<void> },
  sendError: (req: IncomingMessage, res: ServerResponse, error: unknown, verified: boolean) => Promise<void>,
): Promise<void> {
  // A client that goes away mid-body makes the request emit 'error'; it is handled through the
  // store's stream, and this listener keeps a late one from ever becoming an uncaught exception.
  req.on('error', () => undefined);
  const stopWatching = watchForStall(req, res, stallTimeoutMs);
  let verified = false;
  try {
    const { uploadId, partNumber } = req.params;
    await refreshClock();
    store.verifyPartRequest('PUT', uploadId, partNumber, {
      expires: req.query[EXPIRES_PARAM],
      signature: req.query[SIGNATURE_PARAM],
    });
    verified = true;
    const lengthHeader = req.headers['content-length'];
    const contentLength =
      lengthHeader !== undefined && /^\d{1,16}$/.test(lengthHeader) ? Number(lengthHeader) : undefined;
    const { etag } = await store.putPart(uploadId, partNumber, req, {
      contentMd5: req.headers['content-md5'] as string | undefined,
      contentLength,
    });
    if (res.destroyed || res.headersSent) return;
    res.setHeader('x-amz-request-id', requestId());
    res.setHeader('ETag', etag);
    res.status(200).setHeader('Content-Length', '0');
    res.end();
  } catch (error) {
    // The discard before the answer has its own bounds; a stall during it is not the error to tell.
    stopWatching();
    await sendError(req, res, error, verified);
  } finally {
    stopWatching();
  }
}

/**
 * A body shorter than its Content-Length leaves the server waiting for bytes that never come; the
 * client waits for an answer. After `ms` without a byte either way, it gets S3's IncompleteBody
 * and the connection is closed, which also ends the store's half-written part.
 */
function watchForStall(req: IncomingMessage, res: ServerResponse, ms: number): () => void {
  const socket = req.socket;
  const onStall = () => {
    const stalled = new ObjectStoreError(
      'IncompleteBody',
      `No bytes arrived for ${ms} ms before the body was complete (Content-Length ${req.headers['content-length'] ?? 'not given'}); the part is not stored`,
    );
    res.setHeader('Connection', 'close');
    res.once('finish', () => {
      socket.destroy();
      // Node detaches a request from its socket once the answer is sent, so closing the socket
      // alone never ends the request: the store went on waiting for the rest of the body, its
      // part's data file open, until garbage collection (one descriptor per stalled PUT).
      req.destroy(stalled);
    });
    // at once: the rest of this body is exactly what is not coming
    writeError(req, res, stalled);
  };
  // on the request, not the socket: Node destroys a timed-out socket unless the request handles it
  req.setTimeout(ms, onStall);
  return () => {
    socket.setTimeout(0);
    req.off('timeout', onStall);
  };
}

function writeError(req: IncomingMessage, res: ServerResponse, error: unknown): void {
  if (res.headersSent || res.destroyed || req.socket?.destroyed === true) return;
  const storeError =
    error instanceof ObjectStoreError
      ? error
      : new ObjectStoreError('InternalError', 'We encountered an internal error. Please try again.');
  const id = requestId();
  const body = errorXml(storeError, id);
  res.statusCode = OBJECT_STORE_ERROR_STATUS[storeError.code];
  res.setHeader('Content-Type', 'application/xml');
  res.setHeader('x-amz-request-id', id);
  res.setHeader('Content-Length', String(Buffer.byteLength(body)));
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** S3's error body, with the part number, upload id or size limit where S3 adds one. */
export function errorXml(error: ObjectStoreError, requestIdValue: string): string {
  const fields: Array<[string, string]> = [
    ['Code', error.code satisfies ObjectStoreErrorCode],
    ['Message', error.message],
  ];
  if (error.partNumber !== undefined) fields.push(['PartNumber', String(error.partNumber)]);
  if (error.code === 'InvalidArgument' && /^Part number/.test(error.message)) {
    fields.push(['ArgumentName', 'partNumber']);
  }
  fields.push(['RequestId', requestIdValue]);
  const inner = fields.map(([name, value]) => `<${name}>${escapeXml(value)}</${name}>`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error>${inner}</Error>`;
}

// Characters XML 1.0 cannot carry at all (C0 controls except tab, LF, CR; lone surrogates).
// eslint-disable-next-line no-control-regex
const XML_FORBIDDEN = /[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const XML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => XML_ENTITIES[c]).replace(XML_FORBIDDEN, '');
}

function requestId(): string {
  return randomBytes(8).toString('hex').toUpperCase();
}
