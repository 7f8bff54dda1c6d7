import type { Exchange, Finding } from './exchange.js';

/**
 * What an answer the control plane injected still promises. Its status says nothing of the
 * interface, but mockAddFault (mock-control.yaml) fixes its wait: a 429 with `Retry-After` 1, in
 * seconds as the API document's TooManyRequests counts it. A wait in another unit (1000 for one
 * second) tells every client that honours it to stall. A real 429's wait is the target's own
 * choice (the interface shows no rate limit), so only the injected one is predicted.
 */
const SENTENCE =
  'mockAddFault: a 429 also with Retry-After 1 (TooManyRequests: Retry-After: Seconds to wait before trying again)';

export function observeInjected(x: Exchange): Finding[] {
  const wait = x.headers['retry-after'];
  // a missing Retry-After breaks the document's required header: the client's validation says so
  if (x.status !== 429 || wait === undefined || wait.trim() === '1') return [];
  return [
    {
      sentence: SENTENCE,
      subject: `${x.operationId} injected 429: Retry-After`,
      predicted: '1 (second)',
      received: wait,
    },
  ];
}
