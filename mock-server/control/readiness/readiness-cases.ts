/**
 * The cases a client meets in production and seldom on a laptop: each with the operations it sits
 * on, how a journal shows that the client met it, and how a client reacted. Pure: requests in,
 * verdicts out; the exposure (what a client has met) and readiness runs (arming each case on a
 * fresh mock) both read this one catalogue.
 */

/** A request as the journal holds it: the fields the cases read. */
export interface SeenRequest {
  at: string;
  method: string;
  path: string;
  operationId: string | null;
  status: number;
  durationMs: number;
  /** The id of the injected fault that fired on it. */
  fault: string | null;
  responseBody?: unknown;
}

export type CaseId =
  | 'rate-limited'
  | 'unavailable'
  | 'dropped-connection'
  | 'slow-answer'
  | 'part-url-expired'
  | 'prediction-failed'
  | 'many-polls'
  | 'storage-cap'
  | 'analysis-cap'
  | 'share-revoked';

export interface ReadinessCase {
  id: CaseId;
  title: string;
  /** The operations it sits on; `any` for the transport's cases, which every operation can meet. */
  operations: 'any' | readonly string[];
  /** Which calls of those operations it sits on, when not every call (a resumable upload's opening). */
  sitsOn?(request: SeenRequest): boolean;
  /** The request that shows the client met it, or undefined. */
  metBy(requests: readonly SeenRequest[]): SeenRequest | undefined;
  /**
   * The requests its `metBy` reads, and a readiness run's judgement of it (case-arming.ts,
   * client-reaction.ts) besides armed answers, each operation's first call and the call after an
   * armed answer: a run that keeps only some of a long journal keeps these.
   */
  reads(request: SeenRequest): boolean;
}

/** Polls of one prediction from which a client has met "a prediction that takes many polls". */
export const MANY_POLLS = 10;
/** An answer this slow is slower than the timeouts clients commonly set (and than a human waits). */
export const SLOW_ANSWER_MS = 10_000;

const UPLOADS = ['uploadImage', 'createImage'];
const PREDICTIONS = ['createPrediction', 'getPrediction'];
/** A resumable upload's steps (giving it up among them), and the one-request upload a client may fall back to. */
const UPLOAD_STEPS = [...UPLOADS, 'completeUpload', 'getUpload', 'abortUpload', 'deleteUpload'];
const SHARE_VIEWS = ['viewSharePage', 'viewShareImage'];
const isOperation = (r: SeenRequest, operations: readonly string[]) =>
  operations.includes(r.operationId ?? '');

const statusOf = (body: unknown) =>
  body && typeof body === 'object' ? (body as { status?: unknown }).status : undefined;
const detailOf = (body: unknown) =>
  body && typeof body === 'object' ? String((body as { detail?: unknown }).detail ?? '') : '';
const revokedAt = (body: unknown) =>
  body && typeof body === 'object' ? Boolean((body as { revoked_at?: unknown }).revoked_at) : false;
const idOf = (path: string) => path.split('/').pop() ?? '';

/**
 * A resumable upload opened, which hands out part URLs that expire: `uploadImage` with JSON
 * `{name, size}` or `createImage` with `resumable: true` (openapi.yaml), told by the plan in the
 * answer. An answer the journal kept cut is long from its plan's URLs, unless it says it has none.
 */
export function opensResumableUpload(r: SeenRequest): boolean {
  if (!isOperation(r, UPLOADS) || r.status < 200 || r.status >= 300) return false;
  const body = r.responseBody;
  if (typeof body === 'string') return !body.includes('"upload":null');
  return Boolean(body && typeof body === 'object' && (body as { upload?: unknown }).upload);
}

/**
 * `r` opens a resumable upload of the file `opened` opened (its answer's image has the same name and
 * size): a client asking fresh part URLs for it, not one moving on to its next file.
 */
export function reopens(opened: SeenRequest, r: SeenRequest): boolean {
  return opensResumableUpload(r) && fileOf(r) === fileOf(opened);
}

/**
 * `r` sends the file `opened` opened once more, in one request (an upload that hands out no part
 * URL): a client getting its file past the expired URLs another way.
 */
export function resendsInOneRequest(opened: SeenRequest, r: SeenRequest): boolean {
  return (
    r.operationId === 'uploadImage' &&
    r.status >= 200 &&
    r.status < 300 &&
    !opensResumableUpload(r) &&
    fileOf(r) === fileOf(opened)
  );
}

/**
 * A complete refused (422) for a part that never arrived: what a client sees of a part URL that
 * expired, its PUT carrying no key and never journaled. Another 422 (a malformed parts list, an
 * upload no longer open) says nothing of the part URLs.
 */
export function refusedForMissingParts(r: SeenRequest): boolean {
  return (
    r.operationId === 'completeUpload' &&
    r.status === 422 &&
    /uploaded|size mismatch/i.test(detailOf(r.responseBody))
  );
}

/** Requests that give a resumable upload up: neither brings fresh part URLs. */
export const GIVING_UP = ['abortUpload', 'deleteUpload'];

/**
 * The request that shows a client met a part URL that expired, or undefined: the one rule of the
 * live read (GET /__mock/org/readiness) and of a readiness run. Part PUTs carry no key, so the
 * journal never shows them nor their 403; what shows it is what a client must do then. That is a
 * complete refused (422) for a part that never arrived, or the same file sent again while its
 * upload's parts had not all gone in: a new upload of the same name and size (fresh part URLs), or
 * the file in one request. An upload completed first sent its parts in time, so sending its file
 * again later is a new upload, not a way past an expired URL; giving an upload up (an abort, a
 * delete) meets nothing by itself, only with the file sent again after it, as the walkthrough does.
 */
export function partUrlExpiredMetBy(requests: readonly SeenRequest[]): SeenRequest | undefined {
  // the file of each upload opened whose parts have not all gone in, and that upload's image
  const open = new Map<string, string | undefined>();
  const givenUp = new Set<string>();
  for (const r of requests) {
    if (refusedForMissingParts(r)) return r;
    if (opensResumableUpload(r)) {
      if (open.has(fileOf(r))) return r;
      open.set(fileOf(r), imageIdOf(r));
      continue;
    }
    if (r.status < 200 || r.status >= 300) continue;
    if (r.operationId === 'uploadImage' && open.has(fileOf(r))) return r;
    const id = uploadIdOf(r.path);
    if (GIVING_UP.includes(r.operationId ?? '')) givenUp.add(id);
    if (r.operationId === 'completeUpload' && !givenUp.has(id))
      for (const [file, image] of open) if (image === id) open.delete(file);
  }
  return undefined;
}

/** The image id an upload's answer gives (read from the start of a body kept cut), lower case. */
function imageIdOf(r: SeenRequest): string | undefined {
  const body = r.responseBody;
  const text = typeof body === 'string' ? body : JSON.stringify(body ?? {});
  return /"id":"([^"]+)"/.exec(text)?.[1]?.toLowerCase();
}

/** The image id of an upload step's path (`/api/v1/upload/{image_id}/complete`), lower case. */
function uploadIdOf(path: string): string {
  return (path.split('?')[0].split('/')[4] ?? '').toLowerCase();
}

/**
 * The name and size an upload's answer gives its image (read from the start of a body kept cut):
 * `uploadImage` answers the image under `image`, `createImage` answers the image itself.
 */
function fileOf(r: SeenRequest): string {
  const body = r.responseBody;
  const image = body && typeof body === 'object' ? ((body as { image?: unknown }).image ?? body) : {};
  const text = typeof body === 'string' ? body : JSON.stringify(image);
  return `${/"name":("(?:[^"\\]|\\.)*")/.exec(text)?.[1]} ${/"size":(\d+)/.exec(text)?.[1]}`;
}

export const READINESS_CASES: readonly ReadinessCase[] = [
  {
    id: 'rate-limited',
    title: '429 Too Many Requests with Retry-After',
    operations: 'any',
    metBy: (requests) => requests.find((r) => r.status === 429),
    reads: (r) => r.status === 429,
  },
  {
    id: 'unavailable',
    title: '503 Service Unavailable',
    operations: 'any',
    metBy: (requests) => requests.find((r) => r.status === 503),
    reads: (r) => r.status === 503,
  },
  {
    id: 'dropped-connection',
    title: 'a connection dropped before any answer',
    operations: 'any',
    metBy: (requests) => requests.find((r) => r.status === 0),
    reads: (r) => r.status === 0,
  },
  {
    id: 'slow-answer',
    title: `an answer slower than a client's timeout (${SLOW_ANSWER_MS / 1000} s)`,
    operations: 'any',
    metBy: (requests) => requests.find((r) => r.durationMs >= SLOW_ANSWER_MS),
    reads: (r) => r.durationMs >= SLOW_ANSWER_MS,
  },
  {
    id: 'part-url-expired',
    title: 'a part URL that expired before its PUT',
    operations: UPLOADS,
    sitsOn: opensResumableUpload,
    metBy: partUrlExpiredMetBy,
    reads: (r) => isOperation(r, UPLOAD_STEPS),
  },
  {
    id: 'prediction-failed',
    title: 'a prediction that FAILED',
    operations: PREDICTIONS,
    metBy: (requests) =>
      requests.find((r) => r.operationId === 'getPrediction' && statusOf(r.responseBody) === 'FAILED'),
    // Every poll that may be of the FAILED prediction (one never answers COMPLETED): the client's
    // reaction counts those after it.
    reads: (r) => r.operationId === 'getPrediction' && statusOf(r.responseBody) !== 'COMPLETED',
  },
  {
    id: 'many-polls',
    title: `a prediction that takes many polls (${MANY_POLLS} or more)`,
    operations: PREDICTIONS,
    metBy: (requests) => {
      const polls = new Map<string, number>();
      for (const r of requests.filter((r) => r.operationId === 'getPrediction')) {
        const count = (polls.get(idOf(r.path)) ?? 0) + 1;
        polls.set(idOf(r.path), count);
        if (count >= MANY_POLLS) return r;
      }
      return undefined;
    },
    reads: (r) => r.operationId === 'getPrediction',
  },
  {
    id: 'storage-cap',
    title: '402 at the storage cap',
    operations: UPLOADS,
    metBy: (requests) => requests.find((r) => r.status === 402 && UPLOADS.includes(r.operationId ?? '')),
    // Every upload: how many the client sent after the 402.
    reads: (r) => isOperation(r, UPLOADS),
  },
  {
    id: 'analysis-cap',
    title: '402 at the monthly analysis cap',
    operations: ['createPrediction'],
    metBy: (requests) =>
      requests.find(
        (r) =>
          r.status === 402 &&
          r.operationId === 'createPrediction' &&
          /analys/i.test(detailOf(r.responseBody)),
      ),
    reads: (r) => r.operationId === 'createPrediction',
  },
  {
    id: 'share-revoked',
    title: 'a revoked share: its link no longer opens',
    operations: ['createShare'],
    metBy: (requests) =>
      requests.find(
        (r) =>
          (r.operationId === 'getShare' && revokedAt(r.responseBody)) ||
          (isOperation(r, SHARE_VIEWS) && r.status >= 400 && r.status < 500),
      ),
    reads: (r) =>
      (r.operationId === 'getShare' && revokedAt(r.responseBody)) ||
      (isOperation(r, SHARE_VIEWS) && r.status >= 400),
  },
];

/** Whether a case can be met by a client that sent these requests (each of an operation it calls). */
export function caseApplies(c: ReadinessCase, requests: readonly SeenRequest[]): boolean {
  const { operations, sitsOn } = c;
  if (operations === 'any') return requests.some((r) => r.operationId);
  return requests.some((r) => isOperation(r, operations) && (sitsOn?.(r) ?? true));
}
