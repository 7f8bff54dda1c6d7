import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startInstantMock } from '../../../test-support/instant-mock.js';
import type { RunningMock } from '../../server.js';
import type { EmbeddedObjectStore } from '../../stores/object-store/embedded-store.js';
import { storeLayout } from '../../stores/data-layout.js';

const KEY = 'sk_test_acme_4f9a1c7e2b8d4a6f9c3e5b7d1a2c4e6f';
const STALL_MS = 300;

let mock: RunningMock;
/** The embedded store keeps its own record of an upload: its listParts needs no caller's record. */
const embeddedStore = () => mock.services.store as EmbeddedObjectStore;
beforeAll(async () => {
  mock = await startInstantMock({ idleTimeoutMs: STALL_MS, minPartSize: 1024 * 1024 });
});
afterAll(() => mock.close());

async function partUrl(): Promise<URL> {
  const response = await fetch(`${mock.url}/api/v1/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'parts.tif', size: 3 * 1024 * 1024 }),
  });
  const body = (await response.json()) as { upload: { urls: Array<{ url: string }> } };
  return new URL(body.upload.urls[0].url);
}

/** Writes raw bytes on one connection and collects everything the server sends until it closes. */
function rawExchange(url: URL, request: string): { socket: Socket; received: Promise<string> } {
  const socket = connect(Number(url.port), url.hostname);
  const received = new Promise<string>((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('close', () => resolve(text));
    socket.on('error', () => undefined);
  });
  socket.write(request);
  return { socket, received };
}

/** This process's open descriptors on files of the mock's multipart staging (Linux: /proc/self/fd). */
function openInMultipart(): string[] {
  const multipart = storeLayout(mock.services.paths.store).multipart + path.sep;
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(multipart) ? [target] : [];
    } catch {
      return []; // closed while listed
    }
  });
}

const head = (url: URL, length: number) =>
  `PUT ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Length: ${length}\r\n\r\n`;

describe('a part PUT whose body does not match its Content-Length', () => {
  it('shorter, with the client still waiting: 400 IncompleteBody once bytes stop coming, then the connection closes', async () => {
    const url = await partUrl();
    const { received } = rawExchange(url, head(url, 1000) + 'x'.repeat(10));
    const text = await received;
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text).toContain('<Code>IncompleteBody</Code>');
    expect(text).toContain(`No bytes arrived for ${STALL_MS} ms`);
    expect(await embeddedStore().listParts(url.pathname.split('/')[3])).toEqual([]);
    // and the half-written part lets go of its upload's data file
    if (existsSync('/proc/self/fd')) await vi.waitFor(() => expect(openInMultipart()).toEqual([]));
  });

  it('longer: the part holds Content-Length bytes and the bytes past it get a 400 that says the request was malformed', async () => {
    const url = await partUrl();
    const { received } = rawExchange(url, head(url, 5) + 'helloEXTRA-BYTES\r\n\r\n');
    const text = await received;
    const answers = text.split(/(?=HTTP\/1\.1 )/);
    expect(answers[0]).toMatch(/^HTTP\/1\.1 200 /);
    expect(answers[0]).toContain('ETag: "5d41402abc4b2a76b9719d911017c592"'); // md5("hello")
    expect(answers[1]).toMatch(/^HTTP\/1\.1 400 /);
    expect(answers[1]).toMatch(/"detail":"Malformed HTTP request \(HPE_/);
  });

  it('the server answers normally afterwards', async () => {
    expect((await fetch(`${mock.url}/__mock/health`)).status).toBe(200);
  });
});
