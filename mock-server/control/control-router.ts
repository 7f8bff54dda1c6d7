import express from 'express';
import type { Services } from '../services.js';

/** The mock's own control plane, outside /api/v1. */
export function createControlRouter(services: Services): express.Router {
  const router = express.Router();
  router.get('/health', (_req, res) => {
    res.json({ status: 'ok', organizations: services.state.organizations.size });
  });
  return router;
}
