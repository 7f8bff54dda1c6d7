/* global process */
// The start-up floor for the start section: a bare node:http server that answers GET /api/v1/models
// with 200 and nothing else. Launched the way the mock is (directly, and through `npm run`), it
// shows how much of a launch is Node's and npm's own, which no work in the mock can remove.
import { createServer } from 'node:http';

const port = Number(process.argv[process.argv.indexOf('--port') + 1]);
createServer((req, res) => {
  res.writeHead(req.url === '/api/v1/models' ? 200 : 404, { 'content-type': 'application/json' });
  res.end('{"models":[]}');
}).listen(port, '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
