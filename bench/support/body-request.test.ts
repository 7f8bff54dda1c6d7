import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { multipartUpload, sendBody } from './body-request.js';

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Refuses every body at once, unread, and closes the connection, as the mock does past its limits. */
const refuseUnread: http.RequestListener = (_req, res) => {
  res.writeHead(507, { 'content-type': 'application/json', connection: 'close' });
  res.end('{"detail":"The disk is full."}');
};

describe('sendBody', () => {
  it('answers a refusal sent before the body ended, though writing the rest broke the pipe', async () => {
    const url = await serve(refuseUnread);
    for (let i = 0; i < 5; i++) {
      const answer = await sendBody(url, 'POST', {}, { bytes: new Uint8Array(64 << 20) });
      expect(answer.status).toBe(507);
      expect(answer.body).toContain('disk is full');
    }
  });

  it('sends each body on a connection of its own, never on one an earlier request left open', async () => {
    const sockets = new Set<unknown>();
    const url = await serve((req, res) => {
      sockets.add(req.socket);
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    for (let i = 0; i < 3; i++)
      expect((await sendBody(url, 'PUT', {}, { bytes: new Uint8Array(1024) })).status).toBe(200);
    expect(sockets.size).toBe(3);
  });

  it('fails, saying so, when the connection closes with no answer at all', async () => {
    const url = await serve((req) => req.socket.destroy());
    await expect(sendBody(url, 'POST', {}, { bytes: new Uint8Array(1 << 20) })).rejects.toThrow(
      /closed the connection before answering/,
    );
  });
});

describe('multipartUpload', () => {
  it("throws the mock's refusal with its status and detail", async () => {
    const url = await serve(refuseUnread);
    await expect(multipartUpload(url, 'key', 'big.tif', { bytes: new Uint8Array(32 << 20) })).rejects.toThrow(
      /refused the upload of big.tif: 507 .*disk is full/,
    );
  });
});
