import type { DocumentOperation } from './document-operation.js';
import { candidatesFor, escapeRegExp, groupBySlashes } from './path-segment.js';

/** One method of one path template (`/api/v1/image/{image_id}`), with the request headers it reads. */
export interface RouteSpec {
  template: string;
  method: string;
  headers: string[];
}

/** What a path takes: its methods, and the request headers a browser may send to it. */
export interface RouteMethods {
  methods: string[];
  headers: string[];
}

/** Headers the mock reads on every route: content negotiation, and a request id it echoes. */
const EVERY_ROUTE_HEADERS = ['Accept', 'X-Request-Id'];

/**
 * Every path the mock serves with the methods it answers, for what a router alone cannot say:
 * `Allow` on a 405, and the methods and headers of a CORS preflight.
 */
export class RouteTable {
  /** The routes by the number of slashes in their template (groupBySlashes), in the order given. */
  private readonly bySlashes: Map<number, Array<{ pattern: RegExp; spec: RouteSpec }>>;

  constructor(specs: RouteSpec[]) {
    this.bySlashes = groupBySlashes(
      specs.map((spec) => ({ pattern: templatePattern(spec.template), spec })),
      (route) => route.spec.template,
    );
  }

  private candidates(path: string): Array<{ pattern: RegExp; spec: RouteSpec }> {
    return candidatesFor(this.bySlashes, path);
  }

  /**
   * Whether a template matching `path` answers `method`: the question of nearly every request,
   * answered without building `lookup`'s lists (those are for a 405 or a preflight).
   */
  answers(path: string, method: string): boolean {
    for (const { pattern, spec } of this.candidates(path))
      if (spec.method === method && pattern.test(path)) return true;
    return false;
  }

  /** Every method any template matching `path` answers (a path can match more than one). */
  lookup(path: string): RouteMethods | undefined {
    const methods = new Set<string>();
    const headers = new Set<string>(EVERY_ROUTE_HEADERS);
    for (const { pattern, spec } of this.candidates(path)) {
      if (!pattern.test(path)) continue;
      methods.add(spec.method);
      spec.headers.forEach((h) => headers.add(h));
    }
    if (!methods.size) return undefined;
    return { methods: [...methods].sort(byMethodOrder), headers: [...headers] };
  }
}

/** The routes of the document's operations, with the headers their security, body and parameters read. */
export function operationRoutes(operations: DocumentOperation[]): RouteSpec[] {
  return operations.map((operation) => {
    const headers = new Set<string>();
    // An operation without `security` falls under the document's, the bearer key (as the dispatcher reads it).
    const schemes = (operation.security ?? [{ bearerAuth: [] }]).flatMap((r) => Object.keys(r));
    if (schemes.length) headers.add('Authorization');
    if (operation.requestBody) headers.add('Content-Type');
    for (const p of (operation.parameters ?? []) as Array<{ in?: string; name?: string }>)
      if (p.in === 'header' && p.name) headers.add(p.name);
    return { template: operation.path, method: operation.method.toUpperCase(), headers: [...headers] };
  });
}

function templatePattern(template: string): RegExp {
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => (/^\{[^}]+\}$/.test(part) ? '[^/]+' : escapeRegExp(part)))
    .join('');
  return new RegExp(`^${source}$`);
}

const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
function byMethodOrder(a: string, b: string): number {
  return (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99);
}
