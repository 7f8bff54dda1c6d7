import type http from 'node:http';
import { createRequire } from 'node:module';

/**
 * Node's `node:http`, read through require, not import. An ES import of it builds its module
 * namespace, and reading every export loads the HTTP client Node bundles behind its lazy `WebSocket`
 * and `fetch` getters: about 40 ms of a 400 ms start and 6 MB (measured with --cpu-prof), for a
 * client the mock never uses. Server code takes `node:http` from here; types may still be imported.
 */
export const nodeHttp = createRequire(import.meta.url)('node:http') as typeof http;
