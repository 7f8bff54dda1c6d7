/** The request function without a framework: what handlers get, what goes on the wire, failures. */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sendDetail } from './error-responses.js';
import { equipExchange } from './exchange.js';
import { requestPipeline, type RequestStage } from './request-pipeline.js';

let server: http.Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function serve(stages: RequestStage[]): Promise<string> {
  const listener = requestPipeline(stages, (err, _req, res) =>
    sendDetail(res, 500, `failed: ${(err as Error).message}`),
  );
  server = http.createServer(listener).listen(0, '127.0.0.1');
  await new Promise((resolve) => server?.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the exchange handlers see', () => {
  it('splits the URL once: the path still encoded, the query parsed, repeated names as arrays', async () => {
    let seen: unknown;
    const base = await serve([
      (req, res) => {
        seen = { path: req.path, query: { ...req.query }, params: req.params };
        res.json({});
        return true;
      },
    ]);
    await fetch(`${base}/api/v1/a%20b/c?x=1&x=2&y=%C3%A9#frag`);
    expect(seen).toEqual({ path: '/api/v1/a%20b/c', query: { x: ['1', '2'], y: 'é' }, params: {} });
  });

  it('leaves a fragment out of the path and the query, even one holding a question mark', () => {
    const url = (target: string) => {
      const { req } = equipExchange({ url: target } as IncomingMessage, {} as ServerResponse);
      return { path: req.path, query: { ...req.query } };
    };
    expect(url('/a?x=1#f?y=2')).toEqual({ path: '/a', query: { x: '1' } });
    expect(url('/a#f?y=2')).toEqual({ path: '/a', query: {} });
    expect(url('http://host:8000/a/b?x=1')).toEqual({ path: '/a/b', query: { x: '1' } });
  });

  it('answers JSON with its type and byte length, and keeps the body for the journal', async () => {
    let kept: unknown;
    const base = await serve([
      (_req, res) => {
        res.status(201).json({ name: 'é' });
        kept = res.locals.responseBody;
        return true;
      },
    ]);
    const answer = await fetch(base);
    expect(answer.status).toBe(201);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(answer.headers.get('content-length')).toBe(String(Buffer.byteLength('{"name":"é"}')));
    expect(await answer.text()).toBe('{"name":"é"}');
    expect(kept).toEqual({ name: 'é' });
  });

  it('sends text as UTF-8 of its type (HTML unless typed), bytes as they are, and adds to Vary once', async () => {
    const base = await serve([
      (req, res) => {
        res.vary('Origin').vary('origin').vary('Accept');
        if (req.path === '/html') res.send('<p>hi</p>');
        else if (req.path === '/yaml') res.type('application/yaml').send('a: 1');
        else res.type('png').send(Buffer.from([1, 2, 3]));
        return true;
      },
    ]);
    const html = await fetch(`${base}/html`);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.headers.get('vary')).toBe('Origin, Accept');
    expect((await fetch(`${base}/yaml`)).headers.get('content-type')).toBe('application/yaml; charset=utf-8');
    const png = await fetch(`${base}/png`);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect([...new Uint8Array(await png.arrayBuffer())]).toEqual([1, 2, 3]);
  });
});

describe('the stages', () => {
  it('run in order until one takes the request; none taking it is a 404', async () => {
    const seen: string[] = [];
    const base = await serve([
      (req, res) => (
        seen.push(`first ${req.path}`),
        req.path === '/first' ? (res.json({ by: 'first' }), true) : false
      ),
      (req, res) => (
        seen.push(`second ${req.path}`),
        req.path !== '/other' ? (res.json({ by: 'second' }), true) : false
      ),
    ]);
    expect(await (await fetch(`${base}/first`)).json()).toEqual({ by: 'first' });
    expect(await (await fetch(`${base}/mine`)).json()).toEqual({ by: 'second' });
    expect(seen, 'a later stage never sees what an earlier one took').toEqual([
      'first /first',
      'first /mine',
      'second /mine',
    ]);
    const none = await fetch(`${base}/other`);
    expect(none.status).toBe(404);
    expect(await none.json()).toEqual({ detail: 'Not Found' });
  });

  it('turn a throw or a rejection into the failure answer, and the server goes on', async () => {
    const base = await serve([
      (req) => {
        if (req.path === '/throws') throw new Error('thrown');
        return false;
      },
      (req) => (req.path === '/rejects' ? Promise.reject(new Error('rejected')) : false),
      (_req, res) => (res.json({ ok: true }), true),
    ]);
    const thrown = await fetch(`${base}/throws`);
    expect(thrown.status).toBe(500);
    expect(await thrown.json()).toEqual({ detail: 'failed: thrown' });
    expect(await (await fetch(`${base}/rejects`)).json()).toEqual({ detail: 'failed: rejected' });
    expect(await (await fetch(`${base}/fine`)).json()).toEqual({ ok: true });
  });
});
