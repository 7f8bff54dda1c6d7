import type { ErrorObject } from 'ajv';
import type { IncomingMessage } from 'node:http';
import type { DocumentOperation } from './document-operation.js';
import { OperationMatcher } from './operation-matcher.js';
import { RequestValidator } from './request-validator.js';
import type { Fault, FaultControl } from '../control/fault-control.js';
import type { MockClock } from '../domain/clock.js';
import type { RequestRateLimit } from '../domain/abuse-limits.js';
import { authenticate, isAdminToken, type KeyLookup } from './bearer-auth.js';
import { sendDetail, sendDomainError } from './error-responses.js';
import { answerAfterDiscardingRest, type DiscardLimits } from './discard-rest.js';
import { isJsonMediaType, mediaType, readJsonBody, type JsonBodyLimits } from './json-body.js';
import { validationStyles, type ValidationStyle } from './openapi-document.js';
import type { OperationHandler } from './operation-context.js';
import type { ApiRequest, ApiResponse } from './exchange.js';
import { toValidationItems, toValidationSentence } from './validation-errors.js';
import { validationItem, type ValidationItem } from './render/validation-item.js';

const OPERATOR_ONLY =
  "This control route is the operator's (admin token); an organization's key reaches its own test helpers under /__mock/org";

export interface DispatcherOptions {
  keys: KeyLookup;
  /** Counts each request made with an API key; refuses one past the key's rate (429). */
  rateLimit: Pick<RequestRateLimit, 'admit'>;
  /** Token the control plane (`mockAdmin` scheme) requires; empty leaves it open. */
  adminToken: string;
  /** The fault that fires for a request, if any. */
  faults: Pick<FaultControl, 'take'>;
  /** Read again at the start of every request: instances sharing a store share its clock. */
  clock: Pick<MockClock, 'refresh'>;
  handlers: Record<string, OperationHandler>;
  /** Operations whose body the handler streams itself (multipart uploads). */
  streamingOperations: Set<string>;
  /** Size, nesting and key-count bounds of every JSON body, checked before it is parsed. */
  jsonLimits: JsonBodyLimits;
  /** How much of a refused body is read and dropped so that its client can read the answer. */
  discardLimits: DiscardLimits;
}

/**
 * Routing and request validation are ours (operation-matcher.ts, request-validator.ts): with
 * Ajv2020 plus ajv-formats, so `format: uuid` and 2020-12 keywords are enforced, and each
 * operation's validators compiled at its first request (Ajv itself loads in the background).
 *
 * The request pipeline of every operation in the document, in FastAPI's order: route (404/405),
 * credentials (401), the key's rate (429), public surface (403), body and parameter validation
 * (422 in the operation's style), then the operation's handler. A domain failure is answered with
 * its status; anything else is rethrown, for the request function's 500.
 */
export function createDispatcher(operations: DocumentOperation[], options: DispatcherOptions) {
  const styles = validationStyles();
  const matcher = new OperationMatcher(operations);
  const validator = new RequestValidator(operations);
  // After the requests already waiting for the app have been answered.
  setImmediate(() => validator.preload());
  // What the document says of each operation, read once rather than on each of its requests.
  const facts = new Map<DocumentOperation, OperationFacts>(
    operations.map((operation) => [
      operation,
      {
        style: styles.get(operation.operationId ?? '') ?? 'array',
        schemes: (operation.security ?? [{ bearerAuth: [] }]).flatMap((requirement) =>
          Object.keys(requirement),
        ),
        byHandler: handlerValidated(operation),
      },
    ]),
  );
  const missing = operations.filter((o) => !options.handlers[o.operationId ?? '']).map((o) => o.operationId);
  if (missing.length) throw new Error(`no handler for operation(s): ${missing.join(', ')}`);

  return async function dispatch(req: ApiRequest, res: ApiResponse): Promise<void> {
    try {
      const matched = matcher.match(req.method as string, req.path);
      if (!matched.operation)
        return sendDetail(
          res,
          matched.pathKnown ? 405 : 404,
          matched.pathKnown ? 'Method Not Allowed' : 'Not Found',
        );
      const { operation, params } = matched;
      const operationId = operation.operationId as string;
      const { style, schemes, byHandler } = facts.get(operation) as OperationFacts;
      res.locals.operationId = operationId;
      res.locals.pathTemplate = operation.path;

      if (schemes.includes('mockAdmin')) {
        if (options.adminToken && !isAdminToken(req.headers.authorization, options.adminToken)) {
          // A known key is told it is known but not allowed: its own helpers are under /__mock/org.
          if ((await authenticate(req, options.keys)).ok) return sendDetail(res, 403, OPERATOR_ONLY);
          res.setHeader('WWW-Authenticate', 'Bearer');
          return sendDetail(res, 401, 'The control plane needs Authorization: Bearer <admin token>');
        }
      }
      const auth = schemes.includes('bearerAuth') ? await authenticate(req, options.keys) : undefined;
      if (auth && !auth.ok) {
        res.setHeader('WWW-Authenticate', 'Bearer');
        return sendDetail(res, 401, auth.detail);
      }
      res.locals.organizationId = auth?.ok ? auth.org.id : undefined;
      if (auth?.ok) await options.rateLimit.admit(auth.keyId);
      await options.clock.refresh(res.locals.organizationId);
      const fault = await options.faults.take(operationId, res.locals.organizationId);
      if (fault && (await applyFault(fault, req, res))) return;
      if (operation.tags?.includes('internal'))
        return sendDetail(res, 403, 'This endpoint is not part of the public API.');

      let body: unknown = undefined;
      const streaming = options.streamingOperations.has(operationId) && !isJsonMediaType(mediaType(req));
      if (operation.requestBody && !streaming) {
        const read = await readBody(req, options.jsonLimits);
        if (!('value' in read)) {
          return answerAfterDiscardingRest(req, res, options.discardLimits, () =>
            'tooLarge' in read
              ? sendDetail(res, 413, read.tooLarge)
              : sendValidation(res, style, [read.error]),
          );
        }
        body = read.value;
        res.locals.requestBody = body;
      }

      const errors = relevantErrors(
        await validator.validate(operationId, {
          path: params,
          query: req.query as Record<string, unknown>,
          body,
          checkBody: !streaming,
        }),
        streaming,
        byHandler,
      );
      if (errors.length) {
        return sendValidation(
          res,
          style,
          toValidationItems(errors, { path: params, query: req.query as never, body }),
        );
      }
      await options.handlers[operationId]({
        operationId,
        req,
        res,
        org: auth?.ok ? auth.org : (undefined as never),
        params,
        query: req.query as Record<string, unknown>,
        body,
      });
    } catch (err) {
      if (sendDomainError(res, err)) return;
      throw err;
    }
  };
}

interface OperationFacts {
  /** How its 422 words validation errors. */
  style: ValidationStyle;
  /** The security schemes it accepts (the document's bearer key when it names none). */
  schemes: string[];
  /** Query parameters its handler validates itself. */
  byHandler: Set<string>;
}

/** Query parameters the document marks `x-validated-by-handler`: their handler words the error itself. */
function handlerValidated(operation: DocumentOperation): Set<string> {
  const names = (operation.parameters ?? [])
    .filter(
      (p) =>
        'in' in p &&
        p.in === 'query' &&
        (p as unknown as Record<string, unknown>)['x-validated-by-handler'] === true,
    )
    .map((p) => `/query/${(p as { name: string }).name}`);
  return new Set(names);
}

/**
 * Unknown query parameters are ignored, as FastAPI does; a streamed body and parameters marked
 * `x-validated-by-handler` are checked by their handler.
 */
function relevantErrors(errors: ErrorObject[], streaming: boolean, byHandler: Set<string>): ErrorObject[] {
  return errors.filter((e) => {
    if ([...byHandler].some((prefix) => e.instancePath === prefix || e.instancePath.startsWith(`${prefix}/`)))
      return false;
    if (e.keyword === 'additionalProperties' && e.instancePath === '/query') return false;
    if (
      streaming &&
      (e.instancePath.startsWith('/requestBody') ||
        (e.keyword === 'required' &&
          (e.params as { missingProperty?: string }).missingProperty === 'requestBody'))
    )
      return false;
    return true;
  });
}

type BodyOutcome = { value: unknown } | { error: ValidationItem } | { tooLarge: string };

async function readBody(req: IncomingMessage, limits: JsonBodyLimits): Promise<BodyOutcome> {
  const type = mediaType(req);
  const contentLength = Number(req.headers['content-length'] ?? 0);
  const hasBody = contentLength > 0 || req.headers['transfer-encoding'] !== undefined;
  if (!hasBody) return { value: undefined };
  if (!isJsonMediaType(type)) {
    return bodyError(
      `Expected Content-Type application/json, got '${type || 'none'}'`,
      'model_attributes_type',
      {
        content_type: type,
      },
    );
  }
  const parsed = await readJsonBody(req, limits);
  switch (parsed.kind) {
    case 'none':
      return { value: undefined };
    case 'json':
      return { value: parsed.value };
    case 'too_large':
      return {
        tooLarge: `Request body too large: a JSON body may have at most ${parsed.limit} bytes.`,
      };
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
    case 'invalid':
      return {
        error: validationItem(
          ['body', String(parsed.position)],
          'JSON decode error',
          'json_invalid',
          {},
          {
            error: parsed.message,
          },
        ),
      };
  }
}

function bodyError(msg: string, type: string, ctx: Record<string, unknown>): { error: ValidationItem } {
  return { error: validationItem(['body'], msg, type, null, ctx) };
}

/** Answers for the fault, or waits its latency and lets the request go on; true when answered. */
async function applyFault(fault: Fault, req: IncomingMessage, res: ApiResponse): Promise<boolean> {
  res.locals.fault = fault.id;
  if (fault.latencyMs) await waitAtLeast(fault.latencyMs);
  if (fault.dropConnection) {
    req.socket.destroy();
    return true;
  }
  if (fault.status) {
    req.resume();
    // The document requires Retry-After on every 429 and 503; an injected one keeps to it like a real one.
    if (fault.status === 429 || fault.status === 503) res.setHeader('Retry-After', '1');
    sendDetail(res, fault.status, fault.detail ?? `Injected fault: ${fault.status}`);
    return true;
  }
  return false;
}

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

function sendValidation(res: ApiResponse, style: ValidationStyle, items: ValidationItem[]): void {
  sendDetail(res, 422, style === 'string' ? toValidationSentence(items) : items);
}
