import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  SABOTAGES,
  type Answer,
  type Exchange,
  type ProxyState,
  type Sabotage,
  type SabotageCase,
} from './sabotage-catalogue.js';

/**
 * The proxy that carries one case of the sabotage catalogue (sabotage-catalogue.ts) in front of a
 * healthy mock: it forwards every request, rewrites the mock's own root in JSON answers to its
 * own, remembers the part URLs it hands out, and lets the case edit the request and the answer.
 */

/** Remembers the part URLs of an upload plan in a JSON answer. */
function rememberPresigned(answer: Answer, state: ProxyState): void {
  if (!(answer.headers['content-type'] ?? '').includes('json')) return;
  const text = answer.body.toString('utf8');
  if (!text.includes('"urls"')) return;
  const body = JSON.parse(text) as { upload?: { urls?: Array<{ url: string }> } };
  for (const { url } of body.upload?.urls ?? []) {
    const parsed = new URL(url);
    state.presigned.set(parsed.pathname, parsed);
  }
}

/** Methods HTTP lets a client send again when no answer came (RFC 9110, 9.2.2): a part PUT is one. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** A connection that broke before any answer: a kept-alive one the mock closed as it was reused. */
function connectionLost(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string } }).cause;
  return ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'].includes(cause?.code ?? '');
}

/**
 * The same race on the suite's side: the suite's fetch keeps its connection to the proxy for the
 * time the proxy advertises (less a second), so the proxy keeps it far longer than it says, and a
 * client slowed by load drops it first ("other side closed" on a POST in the mutation sample).
 */
const ADVERTISED_KEEP_ALIVE_S = 5;
const KEEP_ALIVE_MS = 60_000;

/** Tries of a request whose connection broke before any answer (each broken one is dropped). */
const TRIES = 3;

/**
 * Sends a request to the mock, again on another connection when one broke before any answer and
 * the method may be sent twice. fetch keeps connections to the mock alive between requests, and
 * the mock closes one that idles past its keep-alive timeout (5 s); under heavy load the proxy's
 * event loop reads that close late and sends the next request on the dead connection, which
 * fails with ECONNRESET: the proxy answered those 502, part PUTs after a poll's idle time above
 * all. A POST is never sent twice (it may have been acted on): its 502 names the socket's error.
 */
async function forward(url: string, init: RequestInit): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, init);
    } catch (err) {
      if (attempt === TRIES || !IDEMPOTENT.has(init.method ?? 'GET') || !connectionLost(err)) throw err;
    }
  }
}

/** The proxy's 502 says what failed, down to the socket's error code. */
function describeFailure(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const message = (err as Error).message;
  return cause ? `${message} (${cause.code ?? 'no code'}: ${cause.message ?? ''})` : message;
}

/**
 * The proxy of one case in front of `target`, on `port` (default: a free one): a case of the
 * catalogue by name, or any case (the mutation harness's generated ones, test-support/mutation/).
 */
export async function startSabotageProxy(
  target: string,
  sabotage: Sabotage | SabotageCase,
  keys: { main: string; other: string },
  port = 0,
) {
  const broken: SabotageCase = typeof sabotage === 'string' ? SABOTAGES[sabotage] : sabotage;
  const state: ProxyState = {
    target,
    self: '',
    keys,
    presigned: new Map(),
    polled: new Set(),
    deleted: new Set(),
  };
  const server = http.createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined || ['host', 'connection', 'content-length'].includes(name)) continue;
        headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const exchange: Exchange = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers,
        body: Buffer.concat(chunks),
      };
      await broken.request?.(exchange, state);
      const upstream = await forward(target + exchange.path, {
        method: exchange.method,
        headers: exchange.headers,
        body: ['GET', 'HEAD'].includes(exchange.method) ? undefined : exchange.body,
        redirect: 'manual',
      });
      const answer: Answer = {
        status: upstream.status,
        headers: {},
        body: Buffer.from(await upstream.arrayBuffer()),
      };
      upstream.headers.forEach((value, name) => {
        if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name))
          answer.headers[name] = value;
      });
      if ((answer.headers['content-type'] ?? '').includes('json'))
        answer.body = Buffer.from(answer.body.toString('utf8').replaceAll(target, state.self));
      rememberPresigned(answer, state);
      await broken.response?.(exchange, answer, state);
      res.writeHead(answer.status, {
        ...answer.headers,
        'content-length': String(answer.body.length),
        'keep-alive': `timeout=${ADVERTISED_KEEP_ALIVE_S}`,
      });
      res.end(answer.body);
    } catch (err) {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: `sabotage proxy: ${describeFailure(err)}` }));
    }
  });
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject); // a port in use, say: the caller says so
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  state.self = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: state.self,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
