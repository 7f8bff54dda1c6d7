import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { sendDetail } from './error-responses.js';
import { equipExchange, type ApiRequest, type ApiResponse } from './exchange.js';

/**
 * One step of the request function. `false`: not this step's request, the next one looks at it;
 * `true`: answered; a promise: being answered, and a rejection is the pipeline's to answer.
 */
export type RequestStage = (req: ApiRequest, res: ApiResponse) => boolean | Promise<void>;

/** What answers a request that a stage failed on; it must never throw. */
export type FailureAnswer = (err: unknown, req: ApiRequest, res: ApiResponse) => void;

/**
 * The whole request function: the stages in order, the first that takes a request answers it, and
 * any exception or rejection goes to `onFailure`, so that no request can crash the process. A
 * request no stage takes gets 404.
 */
export function requestPipeline(stages: RequestStage[], onFailure: FailureAnswer): RequestListener {
  return function handleRequest(incoming: IncomingMessage, outgoing: ServerResponse): void {
    const { req, res } = equipExchange(incoming, outgoing);
    try {
      for (const stage of stages) {
        const taken = stage(req, res);
        if (taken === false) continue;
        if (taken !== true) taken.catch((err: unknown) => onFailure(err, req, res));
        return;
      }
      sendDetail(res, 404, 'Not Found');
    } catch (err) {
      onFailure(err, req, res);
    }
  };
}
