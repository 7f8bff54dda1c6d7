import type { Logger } from 'pino';
import { sendDetail } from './error-responses.js';
import type { FailureAnswer } from './request-pipeline.js';

/**
 * The answer to a request a stage failed on: logged with its request id, then a 500 naming that id,
 * or, once part of the answer went out, the connection cut so that the client sees it cut short
 * rather than waiting for the rest. It never throws: whatever goes wrong here cuts the connection.
 */
export function failureAnswer(logger: Pick<Logger, 'error'>): FailureAnswer {
  return (err, req, res) => {
    try {
      logger.error({ err, reqId: res.locals.requestId, path: req.path }, 'unhandled error');
      if (!res.headersSent)
        sendDetail(res, 500, `Internal Server Error (request id ${res.locals.requestId})`);
      else if (!res.writableEnded) res.destroy();
    } catch {
      res.destroy();
    }
  };
}
