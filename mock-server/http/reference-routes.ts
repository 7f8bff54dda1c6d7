import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Response, type Router } from 'express';
import type { PublicDocument } from './public-document.js';
import type { RouteSpec } from './route-table.js';

/**
 * The public document and a readable reference of it, as FastAPI services (production is one)
 * serve them: `/openapi.json`, `/openapi.yaml` and `/docs`, without a credential.
 *
 * `/docs` is Swagger UI, the renderer FastAPI's own `/docs` uses, from the exact version of
 * swagger-ui-dist in package.json (a plain static bundle with no dependency of its own to load at
 * run time), served from node_modules: the page loads nothing from any other host, which its
 * Content-Security-Policy also enforces.
 */
export function createReferenceRouter({ publicBaseUrl }: { publicBaseUrl: string }): Router {
  const router = express.Router();
  let document: Promise<PublicDocument> | undefined;
  // Read on first request, not at start: nothing here may hold back the mock's first answer.
  const served = () =>
    (document ??= import('./public-document.js').then((m) => m.publicDocument(publicBaseUrl)));

  router.get('/openapi.json', async (_req, res) => {
    res.type('application/json').send((await served()).json);
  });
  router.get('/openapi.yaml', async (_req, res) => {
    res.type('application/yaml; charset=utf-8').send((await served()).yaml);
  });

  router.get('/docs', (_req, res) => {
    referenceHeaders(res, publicBaseUrl);
    res.type('html').send(PAGE);
  });
  router.get('/docs/swagger-initializer.js', (_req, res) => {
    referenceHeaders(res, publicBaseUrl);
    res.type('text/javascript').send(INITIALIZER);
  });
  router.get('/docs/:asset', (req, res, next) => {
    const file = ASSETS.get(String(req.params.asset));
    if (!file) return next();
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.sendFile(file, { root: swaggerUiDist() });
  });
  return router;
}

/** The routes above, for the app's route table (405 Allow, CORS preflights). */
export function referenceRoutes(): RouteSpec[] {
  return ['/openapi.json', '/openapi.yaml', '/docs', '/docs/{asset}'].flatMap((template) =>
    ['GET', 'HEAD'].map((method) => ({ template, method, headers: [] })),
  );
}

const ASSETS = new Map([
  ['swagger-ui.css', 'swagger-ui.css'],
  ['swagger-ui-bundle.js', 'swagger-ui-bundle.js'],
  ['favicon-32x32.png', 'favicon-32x32.png'],
]);

let distFolder: string | undefined;
function swaggerUiDist(): string {
  distFolder ??= path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  return distFolder;
}

function referenceHeaders(res: Response, publicBaseUrl: string): void {
  // "Try it out" calls the document's server, which may be another origin than the page's.
  const api = new URL(publicBaseUrl).origin;
  res.setHeader(
    'Content-Security-Policy',
    [
      "default-src 'self'",
      "img-src 'self' data:",
      "style-src 'self' 'unsafe-inline'",
      "script-src 'self'",
      `connect-src 'self' ${api}`,
    ].join('; '),
  );
  res.setHeader('Cache-Control', 'no-cache');
}

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Image Segmentation Service: API reference (mock)</title>
    <link rel="stylesheet" href="/docs/swagger-ui.css" />
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js"></script>
    <script src="/docs/swagger-initializer.js"></script>
  </body>
</html>
`;

// validatorUrl null: Swagger UI otherwise sends the document to a public validator for a badge.
const INITIALIZER = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  persistAuthorization: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;
