/**
 * The sabotage proxy forwards to a mock over kept-alive connections. A connection the mock closes
 * as the proxy reuses it (its keep-alive timeout running out while the proxy, slowed by load, has
 * not yet read the close) must not turn a part PUT into a 502: the upstream here closes every
 * connection at its second request, the moment the race would.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSabotageProxy } from './sabotage-proxy.js';

let upstream: net.Server;
let proxy: Awaited<ReturnType<typeof startSabotageProxy>>;
/** Bytes of each request body the upstream answered, by method. */
const answered: string[] = [];
let resets = 0;

beforeAll(async () => {
  upstream = net.createServer((socket) => {
    let buffered = Buffer.alloc(0);
    let served = 0;
    socket.on('error', () => undefined);
    socket.on('data', (data: Buffer) => {
      buffered = Buffer.concat([buffered, data]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      if (served === 1) {
        resets++;
        socket.destroy(); // the keep-alive timeout fired as the next request came in
        return;
      }
      const head = buffered.subarray(0, end).toString('latin1');
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      served = 1;
      answered.push(`${head.split(' ')[0]} ${length}`);
      buffered = Buffer.alloc(0);
      socket.write(
        'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nKeep-Alive: timeout=5\r\n\r\nok',
      );
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  proxy = await startSabotageProxy(target, { breaks: [], files: [] }, { main: 'k', other: 'o' });
});
afterAll(async () => {
  await proxy?.close();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

describe('the sabotage proxy over a connection the mock closed as it was reused', () => {
  it('sends a part PUT again on a new connection instead of answering 502', async () => {
    const part = Buffer.alloc(1024 * 1024, 7);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await fetch(`${proxy.url}/storage/uploads/u/parts/${i + 1}`, {
        method: 'PUT',
        body: part,
      });
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 200]);
    expect(resets, 'connections the upstream closed at their reuse').toBeGreaterThan(0);
    expect(answered.filter((a) => a === `PUT ${part.length}`)).toHaveLength(4);
  });

  it('tells its clients to drop an idle connection long before it does', async () => {
    const response = await fetch(`${proxy.url}/api/v1/models`);
    await response.arrayBuffer();
    expect(response.headers.get('keep-alive')).toBe('timeout=5');
  });

  it('never sends a POST twice: its 502 names the socket error', async () => {
    const statuses: number[] = [];
    const details: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${proxy.url}/api/v1/predict`, { method: 'POST', body: '{}' });
      statuses.push(response.status);
      if (response.status === 502) details.push(((await response.json()) as { detail: string }).detail);
      else await response.arrayBuffer();
    }
    expect(statuses).toContain(502);
    for (const detail of details) expect(detail).toMatch(/ECONNRESET|UND_ERR_SOCKET|EPIPE/);
  });
});
