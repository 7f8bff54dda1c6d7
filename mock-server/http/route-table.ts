import type { DocumentOperation } from './document-operation.js';
import { decodeSegment, escapeRegExp } from './path-segment.js';

/** One method of one path template (`/api/v1/image/{image_id}`), with the request headers it reads. */
export interface RouteSpec {
  template: string;
  method: string;
  headers: string[];
  /** The document's operation the route serves; none for the storage and reference routes. */
  operation?: DocumentOperation;
}

/** The operation a request reaches with its decoded path parameters, or why none: `pathKnown` when only the method differs. */
export type OperationMatch =
  | { operation: DocumentOperation; params: Record<string, string> }
  | { operation: undefined; pathKnown: boolean };

/** Headers the mock reads on every route: content negotiation, and a request id it echoes. */
const EVERY_ROUTE_HEADERS = ['Accept', 'X-Request-Id'];

type CompiledRoute = ReturnType<typeof compileRoute>;

/**
 * Every path the mock serves with the methods it answers, compiled once at start-up: the operation
 * a request reaches and its path parameters; `Allow` on a 405; the methods and headers of a CORS
 * preflight. openapi-backend's own matcher rebuilt its operation list and regular expressions on
 * every request (a third of the event loop's busy time under load, measured with --cpu-prof).
 */
export class RouteTable {
  /**
   * The routes by how many `/` their template holds: a parameter matches within one segment, so
   * only templates with as many slashes as a path can match it. Within a group the most literal
   * template comes first (`/upload/x/complete` before `/upload/{id}/{part}`), then the order given.
   */
  private readonly bySlashes = new Map<number, CompiledRoute[]>();

  constructor(specs: RouteSpec[]) {
    const compiled = specs.map(compileRoute).sort((a, b) => literalLength(b) - literalLength(a));
    for (const route of compiled) {
      const slashes = slashCount(route.spec.template);
      const group = this.bySlashes.get(slashes);
      if (group) group.push(route);
      else this.bySlashes.set(slashes, [route]);
    }
  }

  private candidates(path: string): CompiledRoute[] {
    return this.bySlashes.get(slashCount(path)) ?? [];
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

  /**
   * Every method any template matching `path` answers (a path can match more than one), and the
   * request headers a browser may send to it.
   */
  lookup(path: string) {
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

  /** The operation of the most literal template matching `path` that answers `method`. */
  match(method: string, path: string): OperationMatch {
    let pathKnown = false;
    const wanted = method.toUpperCase();
    for (const { pattern, spec, names } of this.candidates(path)) {
      if (!spec.operation) continue;
      const found = pattern.exec(path);
      if (!found) continue;
      if (spec.method !== wanted) {
        pathKnown = true;
        continue;
      }
      const params: Record<string, string> = {};
      names.forEach((name, i) => (params[name] = decodeSegment(found[i + 1]) ?? found[i + 1]));
      return { operation: spec.operation, params };
    }
    return { operation: undefined, pathKnown };
  }
}

/** The routes of the document's operations, with the headers their security, body and parameters read. */
export function operationRoutes(operations: DocumentOperation[]): RouteSpec[] {
  return operations.map((operation) => {
    const headers = new Set<string>();
    if (operation.security.some((requirement) => Object.keys(requirement).length))
      headers.add('Authorization');
    if (operation.requestBody) headers.add('Content-Type');
    for (const p of operation.parameters) if (p.in === 'header') headers.add(p.name);
    return {
      template: operation.path,
      method: operation.method.toUpperCase(),
      headers: [...headers],
      operation,
    };
  });
}

/**
 * The template as a pattern with a capture group per parameter, each within one segment (`[^/]+`),
 * and the parameter names in the order of its groups.
 */
function compileRoute(spec: RouteSpec) {
  const names: string[] = [];
  const source = spec.template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const param = /^\{([^}]+)\}$/.exec(part);
      if (!param) return escapeRegExp(part);
      names.push(param[1]);
      return '([^/]+)';
    })
    .join('');
  return { spec, pattern: new RegExp(`^${source}$`), names };
}

/** Literal characters of the template: the more, the more specific when two templates match a path. */
function literalLength(route: CompiledRoute): number {
  return route.spec.template.replace(/\{[^}]+\}/g, '').length;
}

/** How many `/` a path or template holds. */
export function slashCount(path: string): number {
  let count = 0;
  for (let at = path.indexOf('/'); at !== -1; at = path.indexOf('/', at + 1)) count++;
  return count;
}

const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
function byMethodOrder(a: string, b: string): number {
  return (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99);
}
