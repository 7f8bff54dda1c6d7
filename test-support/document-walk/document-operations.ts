import { get as pointerGet, type Json } from '@hyperjump/json-pointer';

type Node = Record<string, unknown>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  node: Node;
}

export interface Operation {
  id: string;
  method: string;
  path: string;
  parameters: Parameter[];
  /** The first media type of `requestBody.content`, with its schema and examples resolved. */
  body?: { mediaType: string; required: boolean; node: Node };
  /** Links of each response status (`200`, `2XX`, `default`). */
  links: Record<string, Record<string, Node>>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Follows local `$ref`s (`#/...`) until the node is not one. */
export function resolve(document: Node, node: unknown): Node {
  let current = node as Node;
  for (let hops = 0; current && typeof current.$ref === 'string'; hops++) {
    const ref = current.$ref;
    if (!ref.startsWith('#') || hops > 32) throw new Error(`cannot resolve ${ref}`);
    current = pointerGet(decodeURIComponent(ref.slice(1)), document as Json) as Node;
  }
  return current ?? {};
}

/** Every operation of the document, by operationId, with what a request to it needs. */
export function operationsOf(document: Node): Map<string, Operation> {
  const operations = new Map<string, Operation>();
  for (const [path, rawItem] of Object.entries((document.paths ?? {}) as Record<string, unknown>)) {
    const item = resolve(document, rawItem);
    for (const method of METHODS.filter((m) => item[m])) {
      const op = resolve(document, item[method]);
      const byKey = new Map<string, Parameter>();
      for (const raw of [
        ...((item.parameters as unknown[]) ?? []),
        ...((op.parameters as unknown[]) ?? []),
      ]) {
        const node = resolve(document, raw);
        const parameter = { name: String(node.name), in: node.in, required: node.required === true, node };
        byKey.set(`${String(node.in)}:${String(node.name)}`, parameter as Parameter);
      }
      const requestBody = op.requestBody ? resolve(document, op.requestBody) : undefined;
      const [mediaType, media] =
        Object.entries((requestBody?.content ?? {}) as Record<string, Node>)[0] ?? [];
      const links: Operation['links'] = {};
      for (const [status, response] of Object.entries((op.responses ?? {}) as Record<string, unknown>)) {
        const found = resolve(document, response).links as Record<string, unknown> | undefined;
        if (found)
          links[status] = Object.fromEntries(
            Object.entries(found).map(([name, link]) => [name, resolve(document, link)]),
          );
      }
      const id = typeof op.operationId === 'string' ? op.operationId : `${method.toUpperCase()} ${path}`;
      operations.set(id, {
        id,
        method: method.toUpperCase(),
        path,
        parameters: [...byKey.values()],
        body: mediaType
          ? { mediaType, required: requestBody?.required === true, node: resolve(document, media) }
          : undefined,
        links,
      });
    }
  }
  return operations;
}

/** The operation a link names, by `operationId` or by an `operationRef` into this document. */
export function linkTarget(document: Node, operations: Map<string, Operation>, link: Node): Operation {
  if (typeof link.operationId === 'string') {
    const target = operations.get(link.operationId);
    if (target) return target;
    throw new Error(`a link names operationId ${link.operationId}, which the document does not have`);
  }
  const ref = String(link.operationRef);
  const match = /^#\/paths\/([^/]+)\/([a-z]+)$/.exec(ref);
  const path = match ? decodeURIComponent(match[1]).replace(/~1/g, '/').replace(/~0/g, '~') : '';
  for (const operation of operations.values())
    if (operation.path === path && operation.method === match?.[2].toUpperCase()) return operation;
  throw new Error(`a link's operationRef ${ref} names no operation of the document`);
}

/** A documented example of a parameter or schema: `example`, the first `examples`, or `default`. */
export function exampleOf(document: Node, node: Node | undefined): unknown {
  if (!node) return undefined;
  if (node.example !== undefined) return node.example;
  const examples = node.examples;
  if (Array.isArray(examples) && examples.length) return examples[0];
  if (examples && typeof examples === 'object') {
    const first = Object.values(examples as Record<string, unknown>).map((e) => resolve(document, e))[0];
    if (first && first.value !== undefined) return first.value;
  }
  if (node.default !== undefined) return node.default;
  return node.schema ? exampleOf(document, resolve(document, node.schema)) : undefined;
}
