import type { DocumentOperation } from './document-operation.js';
import { candidatesFor, decodeSegment, escapeRegExp, groupBySlashes } from './path-segment.js';

interface CompiledOperation {
  operation: DocumentOperation;
  method: string;
  pattern: RegExp;
  names: string[];
  /** Literal characters of the template: more literal wins when two templates match. */
  specificity: number;
}

/**
 * Routes a request to an operation of the document with patterns compiled once at start-up.
 * openapi-backend's own matcher rebuilds its operation list and regular expressions on every
 * request (a third of the event loop's busy time under load, measured with --cpu-prof).
 */
export class OperationMatcher {
  /** The operations by the number of slashes in their path (groupBySlashes), most specific first. */
  private readonly bySlashes: Map<number, CompiledOperation[]>;

  constructor(operations: DocumentOperation[]) {
    const compiled = operations
      .map((operation) => {
        const names: string[] = [];
        const source = operation.path
          .split(/(\{[^}]+\})/)
          .map((part) => {
            const param = /^\{([^}]+)\}$/.exec(part);
            if (!param) return escapeRegExp(part);
            names.push(param[1]);
            return '([^/]+)';
          })
          .join('');
        return {
          operation,
          method: operation.method.toUpperCase(),
          pattern: new RegExp(`^${source}$`),
          names,
          specificity: operation.path.replace(/\{[^}]+\}/g, '').length,
        };
      })
      .sort((a, b) => b.specificity - a.specificity);
    this.bySlashes = groupBySlashes(compiled, (candidate) => candidate.operation.path);
  }

  /** The operation and its decoded path parameters; `pathKnown` when only the method differs. */
  match(
    method: string,
    path: string,
  ):
    | { operation: DocumentOperation; params: Record<string, string> }
    | { operation: undefined; pathKnown: boolean } {
    let pathKnown = false;
    for (const candidate of candidatesFor(this.bySlashes, path)) {
      const found = candidate.pattern.exec(path);
      if (!found) continue;
      if (candidate.method !== method.toUpperCase()) {
        pathKnown = true;
        continue;
      }
      const params: Record<string, string> = {};
      candidate.names.forEach((name, i) => (params[name] = decodeSegment(found[i + 1]) ?? found[i + 1]));
      return { operation: candidate.operation, params };
    }
    return { operation: undefined, pathKnown };
  }
}
