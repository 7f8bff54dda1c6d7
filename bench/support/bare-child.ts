/**
 * The HTTP peer: a bare express 5 app of the mock's shape (GET /api/v1/predict/:id,
 * GET /api/v1/upload/:id and GET /api/v1/models) answering the same JSON the mock answered, with no validation, no auth,
 * no logging. Bodies come in BARE_BODIES ({predict, upload}); BARE_STATIC_DIR, when set, is served
 * under /static. Prints `{"url": ...}` like mock-child.
 */
import express from 'express';
import http from 'node:http';
import { serveAsBenchChild } from './child-server.js';

const bodies = JSON.parse(process.env.BARE_BODIES ?? '{}') as {
  predict: unknown;
  upload: unknown;
  models?: unknown;
};
const app = express();
app.get('/api/v1/predict/:id', (_req, res) => void res.json(bodies.predict));
app.get('/api/v1/upload/:id', (_req, res) => void res.json(bodies.upload));
app.get('/api/v1/models', (_req, res) => void res.json(bodies.models ?? []));
// Files saved by the exports section, served as they are: the floor of sending those bytes.
if (process.env.BARE_STATIC_DIR) app.use('/static', express.static(process.env.BARE_STATIC_DIR));
const server = http.createServer(app);
await serveAsBenchChild(server);
