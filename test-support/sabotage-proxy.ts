import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Deliberately broken builds of the mock, for proving that the contract suite can fail: a proxy in
 * front of a healthy mock that breaks one rule of the interface. Nothing of this lives in the mock.
 */
export const SABOTAGES = {
  /** complete answers 200 instead of the stated 202. */
  'wrong-status': { breaks: ['UP-04'], files: ['uploads.check.ts'] },
  /** Image responses lose their required upload_status. */
  'missing-field': { breaks: ['UP-11'], files: ['uploads.check.ts'] },
  /** Another organization's key reads the main organization's images. */
  'cross-org-leak': { breaks: ['ISO-01'], files: ['isolation.check.ts'] },
  /** measurements.csv calls area_px "area". */
  'wrong-csv-header': { breaks: ['EXP-01'], files: ['exports.check.ts'] },
  /** A missing key is let through. */
  'no-auth': { breaks: ['AUTH-01'], files: ['auth.check.ts'] },
} as const;

export type Sabotage = keyof typeof SABOTAGES;

export async function startSabotageProxy(
  target: string,
  sabotage: Sabotage,
  keys: { main: string; other: string },
) {
  const server = http.createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined || ['host', 'connection', 'content-length'].includes(name)) continue;
        headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const path = req.url ?? '/';
      if (
        sabotage === 'cross-org-leak' &&
        req.method === 'GET' &&
        path.startsWith('/api/v1/upload/') &&
        headers.get('authorization') === `Bearer ${keys.other}`
      ) {
        headers.set('authorization', `Bearer ${keys.main}`);
      }
      if (sabotage === 'no-auth' && !headers.has('authorization'))
        headers.set('authorization', `Bearer ${keys.main}`);
      const upstream = await fetch(target + path, {
        method: req.method,
        headers,
        body: ['GET', 'HEAD'].includes(req.method ?? 'GET') ? undefined : Buffer.concat(chunks),
        redirect: 'manual',
      });
      let status = upstream.status;
      let body = Buffer.from(await upstream.arrayBuffer());
      const type = upstream.headers.get('content-type') ?? '';
      if (sabotage === 'wrong-status' && /\/complete$/.test(path.split('?')[0]) && status === 202)
        status = 200;
      if (
        sabotage === 'missing-field' &&
        req.method === 'GET' &&
        /^\/api\/v1\/(upload|image)\/[^/]+$/.test(path) &&
        status === 200
      ) {
        const image = JSON.parse(body.toString('utf8'));
        delete image.upload_status;
        body = Buffer.from(JSON.stringify(image));
      }
      if (sabotage === 'wrong-csv-header' && type.startsWith('text/csv'))
        body = Buffer.from(body.toString('utf8').replace(',area_px,', ',area,'));
      const out: Record<string, string> = {};
      upstream.headers.forEach((value, name) => {
        if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name))
          out[name] = value;
      });
      res.writeHead(status, { ...out, 'content-length': String(body.length) });
      res.end(body);
    } catch (err) {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: `sabotage proxy: ${(err as Error).message}` }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
