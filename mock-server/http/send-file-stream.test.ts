import {
  createReadStream,
  existsSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sendFileStream } from './send-file-stream.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'send-file-'));
const FILE = path.join(dir, 'big.png');
const SIZE = 8 * 1024 * 1024; // far more than one read of the stream and the socket's buffers

/** This process's open descriptors on FILE (Linux: /proc/self/fd). */
function openOnFile(): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === FILE;
    } catch {
      return false; // closed while listed
    }
  }).length;
}

let server: http.Server;
let url: string;
beforeAll(async () => {
  writeFileSync(FILE, Buffer.alloc(SIZE, 7));
  server = http.createServer((req, res) => sendFileStream(createReadStream(FILE), res as never));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!existsSync('/proc/self/fd'))('sendFileStream', () => {
  it('sends the whole file, and closes it', async () => {
    const body = Buffer.from(await (await fetch(url)).arrayBuffer());
    expect(body.length).toBe(SIZE);
    await vi.waitFor(() => expect(openOnFile()).toBe(0));
  });

  it('closes the file when clients stop reading and go away', async () => {
    for (let i = 0; i < 5; i++) {
      await new Promise<void>((resolve, reject) => {
        const request = http.get(url, (response) => {
          expect(response.statusCode).toBe(200);
          response.once('data', () => {
            request.destroy(); // gone after the first chunk, most of the file unsent
            resolve();
          });
        });
        request.on('error', (err) => (request.destroyed ? undefined : reject(err)));
      });
    }
    await vi.waitFor(() => expect(openOnFile()).toBe(0), { timeout: 5000 });
  });
});
