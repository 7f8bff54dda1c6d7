import { exampleOf, linkTarget, operationsOf, resolve, type Operation } from './document-operations.js';
import { evaluateLinkValue, type Exchange } from './runtime-expression.js';

/**
 * A walk of an OpenAPI document by its links alone, as a stateful tool does: it knows nothing of
 * the API but the document. It calls every operation that needs no path parameter, then follows
 * each link of each answer, evaluating the link's runtime expressions against that exchange;
 * every other value comes from the document's examples (or `default`s), and every binary part of
 * a multipart body is the sample file. A link whose expressions name nothing yet, on a safe (GET)
 * answer, is polled: the same request again until they resolve, as a client polls a status.
 *
 * A body property named as a reference (`id`, `…_id`, `…Id`), required or not, is what a stateful
 * tool reads as an id of another resource: it is filled from a link or from the value the document
 * gives it, never invented. A request with such a property neither gives is not sent, and the
 * walk reports it (`unfilled`): a tool would start no walk there.
 */
export interface WalkOptions {
  document: Record<string, unknown>;
  baseUrl: string;
  /** Sent with every request (the credential). */
  headers?: Record<string, string>;
  sample?: { bytes: Uint8Array; fileName: string; contentType: string };
  /** How many times a GET is repeated while one of its links does not resolve. */
  maxPolls?: number;
  pollIntervalMs?: number;
  /** A link is followed this many times at most, so a document with cycles ends. */
  followsPerLink?: number;
  maxRequests?: number;
}

export interface WalkReport {
  /** Every link of the document (`operation status name`) and how often the walk followed it. */
  links: Record<string, number>;
  exchanges: Array<{ operation: string; method: string; url: string; status: number; via?: string }>;
  /** Requests not sent, by operation: the reference properties nothing filled. */
  unfilled: Record<string, string[]>;
}

interface Call {
  operation: Operation;
  path: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  /** Reference properties of the body that neither a link nor the document gave a value. */
  unfilled: string[];
  via?: string;
}

/** A name a stateful tool reads as the id of another resource. */
const REFERENCE = /^id$|_id$|[a-z]Id$/;

type Node = Record<string, unknown>;

export async function walkDocument(options: WalkOptions): Promise<WalkReport> {
  const { document } = options;
  const operations = operationsOf(document);
  const report: WalkReport = { links: {}, exchanges: [], unfilled: {} };
  for (const operation of operations.values())
    for (const [status, links] of Object.entries(operation.links))
      for (const name of Object.keys(links)) report.links[`${operation.id} ${status} ${name}`] = 0;

  const queue: Call[] = [...operations.values()]
    .filter((operation) => !operation.parameters.some((p) => p.in === 'path'))
    .map((operation) => ({ operation, ...filled(document, operation, {}, undefined) }));
  while (queue.length && report.exchanges.length < (options.maxRequests ?? 500)) {
    const call = queue.shift()!;
    if (call.unfilled.length) {
      report.unfilled[call.operation.id] = [
        ...new Set([...(report.unfilled[call.operation.id] ?? []), ...call.unfilled]),
      ];
      continue;
    }
    let pending: Record<string, Node> | undefined;
    for (let poll = 0; poll <= (options.maxPolls ?? 200); poll++) {
      if (poll) await new Promise((resolve) => setTimeout(resolve, options.pollIntervalMs ?? 20));
      const exchange = await send(options, call, report);
      const links = linksFor(call.operation, exchange.statusCode);
      pending ??= links;
      for (const [name, link] of Object.entries(pending)) {
        const key = `${call.operation.id} ${statusKey(call.operation, exchange.statusCode)} ${name}`;
        const next = followLink(document, operations, link, exchange);
        if (!next) continue;
        delete pending[name];
        if (report.links[key] >= (options.followsPerLink ?? 2)) continue;
        report.links[key]++;
        queue.push({ ...next, via: key });
      }
      if (!Object.keys(pending).length || call.operation.method !== 'GET') break;
    }
  }
  return report;
}

function statusKey(operation: Operation, status: number): string {
  const exact = String(status);
  const range = `${exact[0]}XX`;
  return [exact, range, 'default'].find((key) => operation.links[key]) ?? exact;
}

function linksFor(operation: Operation, status: number): Record<string, Node> {
  return { ...(operation.links[statusKey(operation, status)] ?? {}) };
}

/** The call a link leads to, or undefined while one of its expressions names nothing. */
function followLink(
  document: Node,
  operations: Map<string, Operation>,
  link: Node,
  exchange: Exchange,
): Call | undefined {
  const operation = linkTarget(document, operations, link);
  const given: Record<string, unknown> = {};
  for (const [key, value] of Object.entries((link.parameters ?? {}) as Node)) {
    const evaluated = evaluateLinkValue(value, exchange);
    if (!evaluated.resolved) return undefined;
    given[key] = evaluated.value;
  }
  let body: unknown;
  if (link.requestBody !== undefined) {
    const evaluated = evaluateLinkValue(link.requestBody, exchange);
    if (!evaluated.resolved) return undefined;
    body = evaluated.value;
  }
  return { operation, ...filled(document, operation, given, body) };
}

/**
 * Path and query values and the body: the link's where it gives them, the document's examples
 * elsewhere; a reference property either gives is filled, one neither gives is listed as unfilled.
 */
function filled(document: Node, operation: Operation, given: Record<string, unknown>, linkBody: unknown) {
  const unfilled: string[] = [];
  const path: Record<string, string> = {};
  const query: Record<string, unknown> = {};
  for (const parameter of operation.parameters) {
    const value =
      given[`${parameter.in}.${parameter.name}`] ??
      given[parameter.name] ??
      (parameter.required ? exampleOf(document, parameter.node) : undefined);
    if (value === undefined) continue;
    if (parameter.in === 'path') path[parameter.name] = String(value);
    if (parameter.in === 'query') query[parameter.name] = value;
  }
  const media = operation.body;
  let body = linkBody;
  if (media) {
    const example = exampleOf(document, media.node);
    const schema = resolve(document, media.node.schema);
    body ??= example;
    if (schema.type === 'object' || schema.properties) {
      const object = { ...((body ?? {}) as Node) };
      const properties = (schema.properties ?? {}) as Node;
      for (const name of (schema.required ?? []) as string[]) {
        const property = resolve(document, properties[name]);
        object[name] ??= (example as Node | undefined)?.[name] ?? exampleOf(document, property);
      }
      for (const name of Object.keys(properties).filter(
        (n) => REFERENCE.test(n) && object[n] === undefined,
      )) {
        const documented = exampleOf(document, resolve(document, properties[name]));
        if (documented === undefined) unfilled.push(name);
        else object[name] = documented;
      }
      if (Object.keys(object).length || media.required) body = object;
    }
  }
  return { path, query, body, unfilled };
}

async function send(options: WalkOptions, call: Call, report: WalkReport): Promise<Exchange> {
  const { operation } = call;
  const url = new URL(
    options.baseUrl.replace(/\/$/, '') +
      operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(call.path[name] ?? '')),
  );
  for (const [name, value] of Object.entries(call.query))
    for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(item));
  const headers = new Headers(options.headers);
  const init: RequestInit = { method: operation.method, headers };
  if (call.body !== undefined && operation.body) {
    if (operation.body.mediaType === 'multipart/form-data')
      init.body = formData(options, operation, call.body);
    else {
      headers.set('content-type', operation.body.mediaType);
      init.body = JSON.stringify(call.body);
    }
  }
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown = text;
  if (/json/.test(response.headers.get('content-type') ?? ''))
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  report.exchanges.push({
    operation: operation.id,
    method: operation.method,
    url: url.pathname + url.search,
    status: response.status,
    via: call.via,
  });
  return {
    url: url.href,
    method: operation.method,
    statusCode: response.status,
    request: {
      path: call.path,
      query: Object.fromEntries([...url.searchParams]),
      header: headers,
      body: call.body,
    },
    response: { header: response.headers, body },
  };
}

/** A multipart body: binary properties carry the sample file, the others their values as text. */
function formData(options: WalkOptions, operation: Operation, body: unknown): FormData {
  const { document } = options;
  const schema = resolve(document, operation.body?.node.schema);
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const form = new FormData();
  const names = new Set([...Object.keys((body ?? {}) as Node), ...((schema.required ?? []) as string[])]);
  for (const name of names) {
    const property = resolve(document, properties[name]);
    const binary =
      property.format === 'binary' ||
      (typeof property.contentMediaType === 'string' && !/json|text/.test(property.contentMediaType));
    if (binary && options.sample) {
      const { bytes, fileName, contentType } = options.sample;
      form.append(name, new Blob([bytes], { type: contentType }), fileName);
    } else {
      const value = (body as Node | undefined)?.[name];
      if (value !== undefined) form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
    }
  }
  return form;
}
