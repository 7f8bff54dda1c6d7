/**
 * The framework peer: a fastify app of the mock's shape (GET /api/v1/predict/:id,
 * GET /api/v1/upload/:id and GET /api/v1/models) answering the same JSON the mock answered, with
 * what fastify gives a well-kept service for the mock's own lines: its router, and request schemas
 * checked by its own Ajv (the id a UUID, `Authorization: Bearer <key>` present), so a bad request
 * is its 400. No key lookup, no logging, no response schema (the bodies are sent as recorded, by
 * JSON.stringify, as the mock does). Bodies come in FASTIFY_BODIES ({predict, upload, models}).
 * Prints `{"url": ...}` like mock-child.
 */
import Fastify from 'fastify';
import { serveAsBenchChild } from './child-server.js';

const bodies = JSON.parse(process.env.FASTIFY_BODIES ?? '{}') as {
  predict: unknown;
  upload: unknown;
  models?: unknown;
};

const headers = {
  type: 'object',
  properties: { authorization: { type: 'string', pattern: '^Bearer \\S+$' } },
  required: ['authorization'],
} as const;
const byId = {
  headers,
  params: {
    type: 'object',
    properties: { id: { type: 'string', format: 'uuid' } },
    required: ['id'],
  },
} as const;

const app = Fastify({ logger: false });
app.get('/api/v1/predict/:id', { schema: byId }, async () => bodies.predict);
app.get('/api/v1/upload/:id', { schema: byId }, async () => bodies.upload);
app.get('/api/v1/models', { schema: { headers } }, async () => bodies.models ?? []);
await app.ready();
await serveAsBenchChild(app.server);
