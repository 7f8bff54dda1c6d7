/**
 * How a client reacted to a case, where its journal shows it: what it did after the armed answer.
 * Pure: the run's requests (oldest first) in, one sentence out (null when the journal shows none).
 */
import {
  opensResumableUpload,
  refusedForMissingParts,
  reopens,
  resendsInOneRequest,
  type CaseId,
  type SeenRequest,
} from '../control/readiness/readiness-cases.js';

/** The Retry-After the mock sends with an injected 429 (openapi/mock-control.yaml, mockAddFault). */
const RETRY_AFTER_MS = 1000;

/**
 * How much earlier than Retry-After a retry may seem to come and still count as waiting it out. The
 * journal's stamps are the server's, taken after it ended an answer whose bytes may already have
 * reached the client; under load that is tens of milliseconds after the client started its wait.
 */
const STAMP_SLACK_MS = 150;

/** The journal stamps a request when its answer ended: from the end of one to the start of the next. */
const ms = (from: SeenRequest, to: SeenRequest) =>
  Math.round(Date.parse(to.at) - to.durationMs - Date.parse(from.at));
const statusOf = (r: SeenRequest) => (r.responseBody as { status?: unknown } | undefined)?.status;
const revokedAt = (r: SeenRequest) =>
  Boolean((r.responseBody as { revoked_at?: unknown } | undefined)?.revoked_at);

function after(requests: readonly SeenRequest[], first: SeenRequest): SeenRequest[] {
  return requests.slice(requests.indexOf(first) + 1);
}

function retryAfterFault(requests: readonly SeenRequest[], status: number, what: string): string | null {
  const hit = requests.find((r) => r.fault && r.status === status);
  if (!hit) return null;
  const again = after(requests, hit).find((r) => r.operationId === hit.operationId);
  if (!again) return `gave up: never called ${hit.operationId} again after ${what}`;
  const gap = ms(hit, again);
  if (status !== 429) return `retried ${hit.operationId} ${gap} ms after ${what}`;
  return gap >= RETRY_AFTER_MS - STAMP_SLACK_MS
    ? `retried ${hit.operationId} after Retry-After (${gap} ms later; it said 1 s)`
    : `retried ${hit.operationId} too fast: ${gap} ms after a Retry-After of 1 s`;
}

function afterRefusal(requests: readonly SeenRequest[], operations: readonly string[]): string | null {
  const refused = requests.find((r) => r.status === 402 && operations.includes(r.operationId ?? ''));
  if (!refused) return null;
  const again = after(requests, refused).filter((r) => r.operationId === refused.operationId).length;
  return again
    ? `sent ${refused.operationId} ${again} more times after the 402`
    : `stopped at the 402 (${refused.operationId})`;
}

export function clientReaction(id: CaseId, requests: readonly SeenRequest[]): string | null {
  switch (id) {
    case 'rate-limited':
      return retryAfterFault(requests, 429, 'the 429');
    case 'unavailable':
      return retryAfterFault(requests, 503, 'the 503');
    case 'dropped-connection':
      return retryAfterFault(requests, 0, 'the dropped connection');
    case 'slow-answer': {
      const slow = requests.find((r) => r.fault && r.durationMs >= 1000);
      if (!slow) return null;
      const again = after(requests, slow).some((r) => r.operationId === slow.operationId);
      const waited = `${Math.round(slow.durationMs)} ms`;
      // The journal shows 0 when the client closed the connection before the answer came.
      if (slow.status === 0)
        return `timed out after ${waited}, then ${again ? `sent ${slow.operationId} again` : `did not send ${slow.operationId} again`}`;
      return `waited ${waited} for the slow answer`;
    }
    case 'part-url-expired': {
      const opened = requests.find(opensResumableUpload);
      if (!opened) return null;
      const next = after(requests, opened);
      if (next.some(refusedForMissingParts))
        return 'completed the upload although its parts were refused (422)';
      if (next.some((r) => reopens(opened, r))) return 'opened a new upload for fresh part URLs';
      if (next.some((r) => resendsInOneRequest(opened, r))) return 'sent the image again in one request';
      const gaveUp = next.find(
        (r) => ['abortUpload', 'deleteUpload'].includes(r.operationId ?? '') && r.status < 300,
      );
      return gaveUp ? `gave the upload up (${gaveUp.operationId}) and never sent the file again` : null;
    }
    case 'prediction-failed': {
      const failed = requests.find((r) => r.operationId === 'getPrediction' && statusOf(r) === 'FAILED');
      if (!failed) return null;
      const more = after(requests, failed).filter((r) => r.path === failed.path).length;
      return more ? `polled on after FAILED (${more} more polls)` : 'stopped polling at FAILED';
    }
    case 'many-polls': {
      const polls = requests.filter((r) => r.operationId === 'getPrediction');
      if (!polls.length) return null;
      const done = polls.some((r) => statusOf(r) === 'COMPLETED');
      return done
        ? `polled ${polls.length} times until COMPLETED`
        : `stopped after ${polls.length} polls, before COMPLETED`;
    }
    case 'storage-cap':
      return afterRefusal(requests, ['uploadImage', 'createImage']);
    case 'analysis-cap':
      return afterRefusal(requests, ['createPrediction']);
    case 'share-revoked': {
      const read = requests.find((r) => r.operationId === 'getShare' && revokedAt(r));
      const opened = requests.find(
        (r) => ['viewSharePage', 'viewShareImage'].includes(r.operationId ?? '') && r.status >= 400,
      );
      const seen = [
        read && 'read the share and got revoked_at',
        opened && `opened the revoked link (${opened.status})`,
      ].filter(Boolean);
      return seen.length ? seen.join('; ') : null;
    }
  }
}
