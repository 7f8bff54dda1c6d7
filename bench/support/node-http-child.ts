/**
 * The HTTP floor: bare `node:http` answering a fixed JSON body per path (no router, no validation,
 * no auth, no logging), what no framework can beat on this machine. Bodies come in FLOOR_BODIES
 * ({path: body}); any other path is 404. Prints `{"url": ...}` like mock-child.
 */
import http from 'node:http';
import { serveAsBenchChild } from './child-server.js';

const bodies = new Map(
  Object.entries(JSON.parse(process.env.FLOOR_BODIES ?? '{}') as Record<string, unknown>).map(
    ([path, body]) => [path, Buffer.from(JSON.stringify(body))],
  ),
);
const server = http.createServer((req, res) => {
  const body = bodies.get(req.url ?? '');
  if (!body) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(body);
});
await serveAsBenchChild(server);
