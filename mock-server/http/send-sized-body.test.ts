import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { sendSizedBody } from './send-sized-body.js';

const BODY = Buffer.alloc(300_000, 7); // several writes, more than one socket buffer

/**
 * A source that hands out every byte but reports its end only once the response has closed: the
 * slowest case of a file whose last read is still under way when the client has the whole answer.
 */
function endsLate(res: http.ServerResponse): Readable {
  let given = false;
  return new Readable({
    read() {
      if (given) return;
      given = true;
      for (let at = 0; at < BODY.length; at += 65_536) this.push(BODY.subarray(at, at + 65_536));
      res.once('close', () => this.push(null));
    },
  });
}

let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

/** Serves one answer with `send`, read by a client that closes as soon as it has Content-Length bytes. */
async function answerOnce(send: (res: http.ServerResponse) => Promise<void>) {
  const finishedAtClose = new Promise<boolean>((resolve) => {
    server = http.createServer((req, res) => {
      res.on('close', () => resolve(res.writableFinished));
      res.setHeader('Content-Length', BODY.length);
      void send(res);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const received = await new Promise<Buffer>((resolve, reject) => {
    const socket = net.connect((server!.address() as AddressInfo).port, '127.0.0.1');
    let raw = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      raw = Buffer.concat([raw, chunk]);
      const head = raw.indexOf('\r\n\r\n');
      if (head < 0 || raw.length - head - 4 < BODY.length) return;
      socket.destroy(); // the whole answer is here: a client closes now
      resolve(raw.subarray(head + 4));
    });
    socket.on('error', reject);
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
  });
  return { received, finished: await finishedAtClose };
}

describe('sendSizedBody', () => {
  it('finishes the response with its last byte, whenever the source reports its end', async () => {
    const { received, finished } = await answerOnce((res) => sendSizedBody(endsLate(res), res, BODY.length));
    expect(received.equals(BODY)).toBe(true);
    expect(finished, 'the response counts as answered (the journal records its status)').toBe(true);
  });

  it('(the pipe it replaces left such a response unfinished)', async () => {
    const { finished } = await answerOnce(async (res) => void endsLate(res).pipe(res));
    expect(finished).toBe(false);
  });

  it('breaks the answer when the source is shorter than declared', async () => {
    server = http.createServer((req, res) => {
      res.setHeader('Content-Length', 10);
      void sendSizedBody(Readable.from([Buffer.from('short')]), res, 10);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    await expect((await fetch(url)).arrayBuffer()).rejects.toThrow();
  });

  it('sends no byte past the declared length of a source that turns out longer', async () => {
    server = http.createServer((req, res) => {
      res.setHeader('Content-Length', 5);
      void sendSizedBody(Readable.from([Buffer.from('0123'), Buffer.from('456789')]), res, 5);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const raw = await new Promise<Buffer>((resolve, reject) => {
      const socket = net.connect((server!.address() as AddressInfo).port, '127.0.0.1');
      const parts: Buffer[] = [];
      socket.on('data', (chunk) => parts.push(chunk));
      socket.on('end', () => resolve(Buffer.concat(parts)));
      socket.on('error', reject);
      socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    });
    expect(raw.subarray(raw.indexOf('\r\n\r\n') + 4).toString()).toBe('01234');
  });
});
