import { execFile, spawn } from 'node:child_process';
import http from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  FAIL_TIMEOUT_SECONDS,
  MULTIPART_ENVELOPE_BYTES,
  renderNginxConfig,
  type NginxConfigOptions,
} from './nginx-config.js';
import { freePort } from './readiness.js';

const NGINX = process.env.NGINX ?? '/usr/sbin/nginx';
const asRoot = process.getuid?.() === 0 ? { workerUser: { user: 'nobody', group: 'nogroup' } } : {};

const OPTIONS: NginxConfigOptions = {
  listen: { host: '127.0.0.1', port: 8080 },
  instances: [
    { host: '127.0.0.1', port: 9001 },
    { host: '127.0.0.1', port: 9002 },
    { host: '::1', port: 9003 },
  ],
  maxUploadBytes: 4 * 1024 ** 3,
  requestTimeoutMs: 3_600_000,
  idleTimeoutMs: 120_000,
};

/** The value of a directive, `name value;`, wherever it is. */
function directive(conf: string, name: string): string[] {
  return [...conf.matchAll(new RegExp(`^\\s*${name} ([^;\\n]*);`, 'gm'))].map((m) => m[1]);
}

describe('the sandbox nginx.conf', () => {
  const conf = renderNginxConfig(OPTIONS);

  it('spreads requests over every instance by fewest connections', () => {
    expect(conf).toMatch(/upstream mock \{\n\s+least_conn;/);
    expect(directive(conf, 'server')).toEqual([
      `127.0.0.1:9001 max_fails=1 fail_timeout=${FAIL_TIMEOUT_SECONDS}s`,
      `127.0.0.1:9002 max_fails=1 fail_timeout=${FAIL_TIMEOUT_SECONDS}s`,
      `[::1]:9003 max_fails=1 fail_timeout=${FAIL_TIMEOUT_SECONDS}s`,
    ]);
    expect(directive(conf, 'listen')).toEqual(['127.0.0.1:8080']);
    // Idle connections to an instance are closed by nginx before the instance's 5 s closes them.
    expect(directive(conf, 'keepalive_timeout')).toEqual(['4s']);
  });

  it('streams bodies, and leaves the limits to the mock: its upload limit, its timeouts', () => {
    expect(directive(conf, 'proxy_request_buffering')).toEqual(['off']);
    expect(directive(conf, 'proxy_http_version')).toEqual(['1.1']);
    expect(directive(conf, 'client_max_body_size')).toEqual([
      String(4 * 1024 ** 3 + MULTIPART_ENVELOPE_BYTES),
    ]);
    expect(directive(conf, 'proxy_read_timeout')).toEqual(['3610s']);
    expect(directive(conf, 'proxy_send_timeout')).toEqual(['3610s']);
    expect(directive(conf, 'client_body_timeout')).toEqual(['130s']);
    const small = renderNginxConfig({
      ...OPTIONS,
      maxUploadBytes: 1000,
      requestTimeoutMs: 5000,
      idleTimeoutMs: 1,
    });
    expect(directive(small, 'client_max_body_size')).toEqual([String(1000 + MULTIPART_ENVELOPE_BYTES)]);
    expect(directive(small, 'proxy_read_timeout')).toEqual(['15s']);
  });

  it('retries on another instance only when one could not answer, never a POST that reached one', () => {
    expect(directive(conf, 'proxy_next_upstream')).toEqual(['error timeout']);
    expect(conf).not.toMatch(/non_idempotent|http_5\d\d/);
    expect(directive(conf, 'proxy_next_upstream_tries')).toEqual(['3']);
  });

  it('keeps its pid, logs and temporary files under its prefix, and runs in the foreground', () => {
    for (const name of [
      'pid',
      'client_body_temp_path',
      'proxy_temp_path',
      'fastcgi_temp_path',
      'uwsgi_temp_path',
      'scgi_temp_path',
    ])
      for (const value of directive(conf, name)) expect(value, name).not.toMatch(/^\//);
    expect(directive(conf, 'error_log')[0]).toMatch(/^logs\//);
    expect(directive(conf, 'access_log')[0]).toMatch(/^logs\//);
    expect(directive(conf, 'daemon')).toEqual(['off']);
    expect(directive(conf, 'user')).toEqual([]);
    expect(
      directive(renderNginxConfig({ ...OPTIONS, workerUser: { user: 'nobody', group: 'nogroup' } }), 'user'),
    ).toEqual(['nobody nogroup']);
  });

  it('answers 503 in the interface error shape when no instance can', () => {
    expect(conf).toContain('error_page 502 504 =503 @unavailable;');
    expect(/return 503 '([^']*)'/.exec(conf)?.[1]).toBe('{"detail":"$sandbox_unavailable_detail"}');
    expect(directive(conf, 'add_header')).toEqual(['Retry-After 1 always']);
  });

  it('refuses a sandbox of no instance', () => {
    expect(() => renderNginxConfig({ ...OPTIONS, instances: [] })).toThrow(/at least one instance/);
  });

  it('is a configuration Debian nginx accepts (nginx -t)', async () => {
    const prefix = await mkdtemp(path.join(os.tmpdir(), 'sandbox-nginx-'));
    try {
      await mkdir(path.join(prefix, 'logs'));
      await mkdir(path.join(prefix, 'temp'));
      const file = path.join(prefix, 'nginx.conf');
      await writeFile(file, renderNginxConfig({ ...OPTIONS, ...asRoot }));
      const { stderr } = await promisify(execFile)(NGINX, [
        '-t',
        '-p',
        prefix,
        '-c',
        file,
        '-e',
        path.join(prefix, 'logs', 'error.log'),
      ]);
      expect(stderr).toMatch(/test is successful/);
    } finally {
      await rm(prefix, { recursive: true, force: true });
    }
  });
});

/** Upstreams that die before answering (the connection is cut on each request), counting what reached them. */
async function dyingInstances(count: number) {
  const methods: string[] = [];
  const servers = await Promise.all(
    Array.from({ length: count }, async () => {
      const server = http.createServer((req) => {
        methods.push(req.method!);
        req.socket.destroy();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return server;
    }),
  );
  return {
    methods,
    upstreams: servers.map((s) => ({ host: '127.0.0.1', port: (s.address() as AddressInfo).port })),
    close: () => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))),
  };
}

/** A real nginx on the rendered configuration, for one request. */
async function throughNginx(
  upstreams: NginxConfigOptions['instances'],
  request: (url: string) => Promise<Response>,
): Promise<Response> {
  const prefix = await mkdtemp(path.join(os.tmpdir(), 'sandbox-nginx-'));
  const port = await freePort();
  await mkdir(path.join(prefix, 'logs'));
  await mkdir(path.join(prefix, 'temp'));
  const file = path.join(prefix, 'nginx.conf');
  await writeFile(
    file,
    renderNginxConfig({ ...OPTIONS, ...asRoot, listen: { host: '127.0.0.1', port }, instances: upstreams }),
  );
  const nginx = spawn(NGINX, ['-p', prefix, '-c', file, '-e', path.join(prefix, 'logs', 'error.log')], {
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => nginx.once('exit', resolve));
  try {
    // Listening is the readiness here: any request would reach the upstreams under test.
    for (;;) {
      const open = await new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => resolve(true)).once('error', () => resolve(false));
        socket.once('connect', () => socket.end());
      });
      if (open) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return await request(`http://127.0.0.1:${port}`);
  } finally {
    nginx.kill('SIGTERM');
    await exited;
    await rm(prefix, { recursive: true, force: true });
  }
}

describe('nginx on the sandbox configuration, when instances die before answering', () => {
  it('tries a GET on the next instance, and answers 503 in the error shape when none answers', async () => {
    const instances = await dyingInstances(2);
    try {
      const answer = await throughNginx(instances.upstreams, async (url) => {
        const response = await fetch(`${url}/api/v1/models`);
        return new Response(await response.text(), { status: response.status, headers: response.headers });
      });
      expect(instances.methods).toEqual(['GET', 'GET']);
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(await answer.json()).toEqual({
        detail: expect.stringMatching(/stopped before answering.*Retry/),
      });
    } finally {
      await instances.close();
    }
  });

  it('never sends a POST that reached one instance to another', async () => {
    const instances = await dyingInstances(2);
    try {
      const answer = await throughNginx(instances.upstreams, async (url) => {
        const response = await fetch(`${url}/api/v1/predict`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        return new Response(await response.text(), { status: response.status, headers: response.headers });
      });
      expect(instances.methods).toEqual(['POST']);
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('1');
      // It reached an instance: the client is told it may have taken effect, and what to read.
      expect(JSON.parse(await answer.text())).toEqual({
        detail: expect.stringMatching(
          /reached an instance that stopped before answering: it may have taken effect.*skipped/,
        ),
      });
    } finally {
      await instances.close();
    }
  });

  it('says nothing was done when no instance could be reached, even for a POST', async () => {
    // A port below the ephemeral range: one freed by freePort() was taken meanwhile, now and then,
    // by another test's mock listening on port 0, which answered 401 where nobody should answer.
    const nobody = [{ host: '127.0.0.1', port: 1 }];
    const answer = await throughNginx(nobody, async (url) => {
      const response = await fetch(`${url}/api/v1/upload`, { method: 'POST', body: 'x' });
      return new Response(await response.text(), { status: response.status, headers: response.headers });
    });
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(await answer.json()).toEqual({
      detail: expect.stringMatching(/could be reached: nothing was done/),
    });
  });

  it('sets a dead instance aside after one failed try instead of trying it on every request', async () => {
    const dying = await dyingInstances(1);
    const alive = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => alive.listen(0, '127.0.0.1', resolve));
    try {
      const upstreams = [
        ...dying.upstreams,
        { host: '127.0.0.1', port: (alive.address() as AddressInfo).port },
      ];
      const statuses = await throughNginx(upstreams, async (url) => {
        const seen: number[] = [];
        for (let i = 0; i < 10; i++) seen.push((await fetch(`${url}/api/v1/models`)).status);
        return Response.json(seen);
      });
      expect(await statuses.json()).toEqual(Array(10).fill(200));
      // With max_fails=0 it was tried for about every other request.
      expect(dying.methods).toEqual(['GET']);
    } finally {
      await dying.close();
      await new Promise((resolve) => alive.close(resolve));
    }
  });
});
