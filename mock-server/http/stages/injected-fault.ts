import { sendDetail } from '../error-responses.js';
import type { OperationStage } from './operation-call.js';

/**
 * A fault the control plane set for this operation (and organization), drawn through the request's
 * view of the state, which counts its hit: it waits its latency, then drops the connection, answers
 * its status, or lets the request go on.
 */
export const injectedFault: OperationStage = async function applyFault({ req, res, operationId, reads }) {
  const fault = await reads.faults.take(operationId, res.locals.organizationId, Math.random);
  if (!fault) return false;
  res.locals.fault = fault.id;
  if (fault.latencyMs) await waitAtLeast(fault.latencyMs);
  if (fault.dropConnection) {
    req.socket.destroy();
    return true;
  }
  if (!fault.status) return false;
  req.resume();
  // The document requires Retry-After on every 429 and 503; an injected one keeps to it like a real one.
  if (fault.status === 429 || fault.status === 503) res.setHeader('Retry-After', '1');
  sendDetail(res, fault.status, fault.detail ?? `Injected fault: ${fault.status}`);
  return true;
};

/**
 * Waits `ms` as measured on the monotonic clock the journal's `duration_ms` is read from. A timer
 * alone can fire a fraction of a millisecond early on that clock (libuv counts timers from its loop
 * time, kept in whole milliseconds), so a 150 ms fault was journaled as 149.98 ms.
 */
async function waitAtLeast(ms: number): Promise<void> {
  const until = process.hrtime.bigint() + BigInt(Math.ceil(ms * 1e6));
  for (let left = ms; left > 0; left = Number(until - process.hrtime.bigint()) / 1e6)
    await new Promise((resolve) => setTimeout(resolve, Math.ceil(left)));
}
