import type { IncomingMessage } from 'node:http';
import { answerAfterDiscardingRest, type DiscardLimits } from '../discard-rest.js';
import { sendDetail } from '../error-responses.js';
import { isJsonMediaType, mediaType, readJsonBody, type JsonBodyLimits } from '../json-body.js';
import { validationItem, type ValidationItem } from '../render/validation-item.js';
import type { OperationStage } from './operation-call.js';
import { sendValidation } from './request-validation.js';

/**
 * The JSON body of an operation that takes one, read within its bounds: 413 past the size, 422 for
 * a body that is not JSON (or too deep, or with too many keys), answered once the rest of the body
 * is read and dropped, so that its client can read the answer. A streamed body is its handler's.
 */
export function requestBody(jsonLimits: JsonBodyLimits, discardLimits: DiscardLimits): OperationStage {
  return async function readRequestBody(call) {
    if (!call.operation.requestBody || call.streaming) return false;
    const { req, res } = call;
    const read = await readBody(req, jsonLimits);
    if ('value' in read) {
      call.body = read.value;
      res.locals.requestBody = read.value;
      res.locals.requestBodyLength = read.length ?? 0;
      return false;
    }
    await answerAfterDiscardingRest(req, res, discardLimits, () =>
      'tooLarge' in read
        ? sendDetail(res, 413, read.tooLarge)
        : sendValidation(res, call.operation.validationStyle, [read.error]),
    );
    return true;
  };
}

type BodyOutcome = { value: unknown; length?: number } | { error: ValidationItem } | { tooLarge: string };

async function readBody(req: IncomingMessage, limits: JsonBodyLimits): Promise<BodyOutcome> {
  const type = mediaType(req);
  const contentLength = Number(req.headers['content-length'] ?? 0);
  const hasBody = contentLength > 0 || req.headers['transfer-encoding'] !== undefined;
  if (!hasBody) return { value: undefined };
  if (!isJsonMediaType(type))
    return bodyError(
      `Expected Content-Type application/json, got '${type || 'none'}'`,
      'model_attributes_type',
      { content_type: type },
    );
  const parsed = await readJsonBody(req, limits);
  switch (parsed.kind) {
    case 'none':
      return { value: undefined };
    case 'json':
      return { value: parsed.value, length: parsed.length };
    case 'too_large':
      return { tooLarge: `Request body too large: a JSON body may have at most ${parsed.limit} bytes.` };
    case 'not_utf8':
      return bodyError('JSON decode error: the body is not valid UTF-8', 'json_invalid', {
        error: 'invalid UTF-8',
      });
    case 'structure':
      return parsed.problem.kind === 'too_deep'
        ? bodyError(
            `JSON nested too deep: at most ${parsed.problem.limit} levels of objects and arrays (exceeded at byte ${parsed.problem.offset})`,
            'json_too_deep',
            { max_depth: parsed.problem.limit },
          )
        : bodyError(
            `JSON has too many keys: at most ${parsed.problem.limit} in one body (exceeded at byte ${parsed.problem.offset})`,
            'json_too_many_keys',
            { max_keys: parsed.problem.limit },
          );
    case 'interrupted':
      return bodyError('The body ended before it was complete (the connection was closed)', 'json_invalid', {
        error: parsed.message,
      });
    case 'invalid': {
      const loc = ['body', String(parsed.position)];
      return {
        error: validationItem(loc, 'JSON decode error', 'json_invalid', {}, { error: parsed.message }),
      };
    }
  }
}

function bodyError(msg: string, type: string, ctx: Record<string, unknown>): { error: ValidationItem } {
  return { error: validationItem(['body'], msg, type, null, ctx) };
}
