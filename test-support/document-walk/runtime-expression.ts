import { get as pointerGet, type Json } from '@hyperjump/json-pointer';

/** One exchange as a link's runtime expressions see it (OpenAPI 3.1, "Runtime Expressions"). */
export interface Exchange {
  url: string;
  method: string;
  statusCode: number;
  request: { path: Record<string, string>; query: Record<string, string>; header: Headers; body: unknown };
  response: { header: Headers; body: unknown };
}

/** What an expression evaluated to; `undefined` when it names nothing (yet): a field still absent. */
type Value = unknown;

const EXPRESSION = /^\$(url|method|statusCode|request\.|response\.)/;

/**
 * Evaluates one runtime expression: `$url`, `$method`, `$statusCode`, or
 * `$request.`/`$response.` followed by `header.<name>`, `query.<name>`, `path.<name>` or
 * `body` with an optional `#<JSON pointer>` (RFC 6901).
 */
export function evaluateExpression(expression: string, exchange: Exchange): Value {
  if (expression === '$url') return exchange.url;
  if (expression === '$method') return exchange.method.toUpperCase();
  if (expression === '$statusCode') return exchange.statusCode;
  const match = /^\$(request|response)\.(header|query|path|body)(?:\.(.+)|(#.*))?$/.exec(expression);
  if (!match) throw new Error(`not a runtime expression: ${expression}`);
  const [, side, source, name, fragment] = match;
  if (side === 'response' && (source === 'query' || source === 'path'))
    throw new Error(`a response has no ${source}: ${expression}`);
  const message = side === 'request' ? exchange.request : exchange.response;
  if (source === 'header') return message.header.get(name) ?? undefined;
  if (source === 'query') return exchange.request.query[name];
  if (source === 'path') return exchange.request.path[name];
  if (name !== undefined) throw new Error(`a body is read with '#<pointer>': ${expression}`);
  return fragment === undefined ? message.body : bodyAt(message.body, decodeURIComponent(fragment.slice(1)));
}

function bodyAt(body: unknown, pointer: string): Value {
  if (body === undefined) return undefined;
  try {
    return pointerGet(pointer, body as Json);
  } catch {
    return undefined; // a step of the pointer is missing, null or a scalar: nothing there yet
  }
}

/**
 * A link's `parameters` value or `requestBody`: an expression, a string embedding `{expression}`s,
 * a literal, or (for bodies) an object or array whose values may be any of these. The second member
 * is false when an expression named nothing.
 */
export function evaluateLinkValue(value: unknown, exchange: Exchange): { value: unknown; resolved: boolean } {
  if (typeof value === 'string') {
    if (EXPRESSION.test(value)) {
      const result = evaluateExpression(value, exchange);
      return { value: result, resolved: result !== undefined };
    }
    let resolved = true;
    const text = value.replace(/\{(\$[^}]+)\}/g, (_, inner: string) => {
      const result = evaluateExpression(inner, exchange);
      if (result === undefined) resolved = false;
      return String(result ?? '');
    });
    return { value: text, resolved };
  }
  if (Array.isArray(value)) {
    const items = value.map((item) => evaluateLinkValue(item, exchange));
    return { value: items.map((item) => item.value), resolved: items.every((item) => item.resolved) };
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).map(
      ([key, item]) => [key, evaluateLinkValue(item, exchange)] as const,
    );
    return {
      value: Object.fromEntries(entries.map(([key, item]) => [key, item.value])),
      resolved: entries.every(([, item]) => item.resolved),
    };
  }
  return { value, resolved: true };
}
