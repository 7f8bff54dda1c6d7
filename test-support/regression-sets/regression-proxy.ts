import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  seedOrganizations,
  type Answer,
  type Exchange,
  type ProxyState,
  type Regression,
} from './regression.js';

/**
 * A forwarding proxy in front of a healthy mock that carries one regression: it forwards every
 * request, rewrites the mock's root to its own in text answers (part URLs, share URLs, the share
 * page) and in `Location`, and lets the regression edit the request and the answer. Without a
 * regression it changes nothing a client can tell apart, which the runner proves first.
 */

/** Methods a client may send again when no answer came (RFC 9110, 9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** A kept-alive connection the mock closed as it was reused: retried on a fresh one when safe. */
async function forward(url: string, init: RequestInit): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, init);
    } catch (err) {
      const code = (err as { cause?: { code?: string } }).cause?.code ?? '';
      const lost = ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'].includes(code);
      if (attempt === 3 || !lost || !IDEMPOTENT.has(init.method ?? 'GET')) throw err;
    }
  }
}

function isText(contentType: string | undefined): boolean {
  return /json|text\/html|text\/plain/.test(contentType ?? '');
}

/** Reads an upstream answer into an Answer, with the mock's root replaced by the proxy's. */
async function readAnswer(upstream: Response, target: string, self: string): Promise<Answer> {
  const answer: Answer = {
    status: upstream.status,
    headers: {},
    body: Buffer.from(await upstream.arrayBuffer()),
  };
  upstream.headers.forEach((value, name) => {
    if (
      !['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(name)
    )
      answer.headers[name] = value;
  });
  if (isText(answer.headers['content-type']))
    answer.body = Buffer.from(answer.body.toString('utf8').replaceAll(target, self));
  if (answer.headers.location) answer.headers.location = answer.headers.location.replaceAll(target, self);
  return answer;
}

/**
 * Organizations the client creates through the mock's control plane show their key once, in the
 * answer that creates them: the proxy notes it there, so a regression knows whose key a request
 * carries (an organization leak needs the owner's key, a cap the caller's organization).
 */
function learnOrganizations(exchange: Exchange, answer: Answer, state: ProxyState): void {
  if (exchange.method !== 'POST' || answer.status >= 300 || !isText(answer.headers['content-type'])) return;
  const path = new URL(exchange.path, 'http://proxy').pathname;
  const created = path === '/__mock/organizations';
  const keyAdded = path.match(/^\/__mock\/organizations\/([0-9a-fA-F-]{36})\/keys$/);
  if (!created && !keyAdded) return;
  const body = JSON.parse(answer.body.toString('utf8')) as {
    id?: string;
    name?: string;
    api_keys?: string[];
    api_key?: string;
  };
  const id = created ? body.id : keyAdded?.[1];
  const key = created ? body.api_keys?.[0] : body.api_key;
  if (!id || !key) return;
  const known = state.organizations.find((org) => org.id === id);
  state.organizations.push({
    id,
    name: body.name ?? known?.name ?? '',
    key,
    customModelIds: known?.customModelIds ?? [],
  });
}

export interface RunningProxy {
  url: string;
  /**
   * Exceptions a regression's own hooks threw: a run with any is no measure (the suite would
   * fail on the proxy's 502, not on the regression), so the runner reports it as an error.
   */
  hookErrors: string[];
  close(): Promise<void>;
}

/** The proxy of `regression` (none: a no-op proxy) in front of `target`. */
export async function startRegressionProxy(target: string, regression?: Regression): Promise<RunningProxy> {
  const state: ProxyState = {
    target,
    self: '',
    organizations: seedOrganizations(),
    memo: new Map(),
    async upstream(method, requestPath, init = {}) {
      const headers: Record<string, string> = {};
      if (init.key) headers.authorization = `Bearer ${init.key}`;
      if (init.body !== undefined) headers['content-type'] = 'application/json';
      const upstream = await forward(target + requestPath, {
        method,
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      return readAnswer(upstream, target, state.self);
    },
    async resend(exchange) {
      const upstream = await forward(target + exchange.path, {
        method: exchange.method,
        headers: exchange.headers,
        body: ['GET', 'HEAD'].includes(exchange.method) ? undefined : exchange.body,
        redirect: 'manual',
      });
      return readAnswer(upstream, target, state.self);
    },
  };
  const hookErrors: string[] = [];
  async function hook<T>(name: string, run: () => T | Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      hookErrors.push(`${regression?.id} ${name}: ${(err as Error).stack ?? String(err)}`);
      throw err;
    }
  }
  const server = http.createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined || ['host', 'connection', 'content-length', 'keep-alive'].includes(name))
          continue;
        headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const exchange: Exchange = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers,
        body: Buffer.concat(chunks),
      };
      let answer = (await hook('request', () => regression?.request?.(exchange, state))) ?? undefined;
      if (!answer) {
        answer = await state.resend(exchange);
        learnOrganizations(exchange, answer, state);
        const forwarded = answer;
        await hook('response', () => regression?.response?.(exchange, forwarded, state));
      }
      res.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body.length) });
      res.end(exchange.method === 'HEAD' ? undefined : answer.body);
    } catch (err) {
      if (res.headersSent) return void res.destroy();
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: `regression proxy: ${(err as Error).message}` }));
    }
  });
  // The suite's client keeps connections for the time advertised; keep them longer than that.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  state.self = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: state.self,
    hookErrors,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
