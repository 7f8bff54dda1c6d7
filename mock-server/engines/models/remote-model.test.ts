import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plane } from '../raster/plane.js';
import { segmentRemotely } from './remote-model.js';

/** A stand-in for a GPU worker: thresholds at 100 and labels each bright 4-connected blob. */
function fakeWorker(behaviour: 'ok' | 'error' | 'short') {
  return http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const width = Number(req.headers['x-width']);
    const height = Number(req.headers['x-height']);
    const pixels = Buffer.concat(chunks);
    if (behaviour === 'error') {
      res.writeHead(500).end('CUDA out of memory');
      return;
    }
    const labels = Buffer.alloc(width * height * 4 - (behaviour === 'short' ? 4 : 0));
    let next = 0;
    const seen = new Int32Array(width * height);
    for (let i = 0; i < width * height; i++) {
      if (pixels[i] <= 100 || seen[i]) continue;
      next++;
      const stack = [i];
      seen[i] = next;
      while (stack.length) {
        const p = stack.pop()!;
        if (p * 4 < labels.length) labels.writeInt32LE(next * 7, p * 4); // any positive id, not 1..n
        const x = p % width;
        for (const q of [p - 1, p + 1, p - width, p + width]) {
          if (q < 0 || q >= width * height || (q === p - 1 && x === 0) || (q === p + 1 && x === width - 1))
            continue;
          if (pixels[q] > 100 && !seen[q]) {
            seen[q] = next;
            stack.push(q);
          }
        }
      }
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(labels);
  });
}

function plane(): Plane {
  const width = 12;
  const height = 8;
  const data = new Uint8Array(width * height);
  for (let y = 1; y <= 3; y++) for (let x = 1; x <= 3; x++) data[y * width + x] = 200; // 3x3 square
  for (let y = 4; y <= 6; y++) for (let x = 6; x <= 10; x++) data[y * width + x] = 200; // 5x3 rectangle
  return { width, height, bitsPerSample: 8, data };
}

const servers: Record<string, { url: string; server: http.Server }> = {};

beforeAll(async () => {
  for (const behaviour of ['ok', 'error', 'short'] as const) {
    const server = fakeWorker(behaviour);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers[behaviour] = {
      server,
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/segment`,
    };
  }
});
afterAll(() => Promise.all(Object.values(servers).map(({ server }) => new Promise((r) => server.close(r)))));

describe('segmentRemotely: the seam for a real GPU model', () => {
  it('sends the plane, reads back a label image, and traces and measures its objects', async () => {
    const worker = { url: servers.ok.url, timeoutMs: 5000 };
    const result = await segmentRemotely(plane(), worker, new AbortController().signal);
    expect(result.objects.map((o) => o.measurements.areaPx)).toEqual([9, 15]);
    expect(result.objects[0].measurements.bbox).toEqual({ x: 1, y: 1, width: 3, height: 3 });
    expect(result.objects[1].outline).toHaveLength(4);
  });

  it('reports a worker error in words', async () => {
    const worker = { url: servers.error.url, timeoutMs: 5000 };
    await expect(segmentRemotely(plane(), worker, new AbortController().signal)).rejects.toThrow(
      /answered 500: CUDA out of memory/,
    );
  });

  it('refuses a label image of the wrong size', async () => {
    const worker = { url: servers.short.url, timeoutMs: 5000 };
    await expect(segmentRemotely(plane(), worker, new AbortController().signal)).rejects.toThrow(
      /returned 380 bytes/,
    );
  });

  it('says so when the worker cannot be reached', async () => {
    const worker = { url: 'http://127.0.0.1:9/segment', timeoutMs: 2000 };
    await expect(segmentRemotely(plane(), worker, new AbortController().signal)).rejects.toThrow(
      /did not answer/,
    );
  });
});
