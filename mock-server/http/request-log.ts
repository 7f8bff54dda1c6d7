import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { RequestJournal } from '../control/request-journal.js';
import { mediaType } from './json-body.js';
import type { RequestMetrics } from './request-metrics.js';
import type { RequestStage } from './request-pipeline.js';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** The operation label of a request no document operation took (storage, /docs, 404s). */
const NO_OPERATION = 'none';

/**
 * One JSON log line per request, tied to an id that is echoed in `X-Request-Id` (the client's, if
 * it sent one), and an entry in the journal the control plane serves. A refused or failed request
 * (4xx, 5xx, or a connection closed before the answer) is logged at info, where a client's author
 * looks for what went wrong; a successful one at debug unless `--log-requests all`: a line for
 * every success cost about a fifth of the mock's throughput under the HTTP bench's load. The journal
 * keeps every request either way. The JSON body of an answer is kept by `res.json` (exchange.ts).
 * The metrics count it by the operation routing named and its status, and observe its latency.
 * A connection closed before the answer counts as status 0.
 */
export function requestLog(
  logger: Logger,
  journal: Pick<RequestJournal, 'record'>,
  metrics: Pick<RequestMetrics, 'observeRequest'>,
  /** The level a successful request's line is written at (--log-requests all: info). */
  { successes }: { successes: 'info' | 'debug' },
): RequestStage {
  // A journal that writes in batches answers every entry of a batch with the batch's one promise.
  // A handler on it per request kept up to a batch's 500 alive for its interval (on Node 22 each
  // with its async context): about a tenth of a read's CPU on PostgreSQL. So a promise is watched
  // once, and a lost batch logged once (its error says how many entries went with it).
  let watched: Promise<void> | undefined;
  return (req, res) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    const started = process.hrtime.bigint();
    res.on('close', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const status = res.writableFinished ? res.statusCode : 0;
      metrics.observeRequest(res.locals.operationId ?? NO_OPERATION, status, ms / 1e3);
      const level = status >= 200 && status < 400 ? successes : 'info';
      if (logger.isLevelEnabled(level))
        logger[level](
          { reqId: id, method: req.method, path: req.path, status, ms, operationId: res.locals.operationId },
          'request',
        );
      if (String(res.locals.operationId ?? '').startsWith('mock')) return;
      // Recorded after the answer went out: a journal that cannot take it is logged, never the request's failure.
      const recorded = journal.record(
        {
          at: new Date().toISOString(),
          requestId: id,
          method: req.method as string,
          path: req.path,
          pathTemplate: res.locals.pathTemplate ?? null,
          operationId: res.locals.operationId ?? null,
          organizationId: res.locals.organizationId ?? null,
          status,
          durationMs: ms,
          requestMediaType: mediaType(req) || null,
          requestBody: res.locals.requestBody,
          responseBody: res.locals.responseBody,
          fault: res.locals.fault ?? null,
        },
        { request: res.locals.requestBodyLength, response: res.locals.responseBodyLength },
      );
      if (recorded === watched) return;
      watched = recorded;
      recorded.catch((err: unknown) =>
        logger.warn({ reqId: id, err }, 'request not journaled (nor the others recorded with it)'),
      );
    });
    return false;
  };
}
