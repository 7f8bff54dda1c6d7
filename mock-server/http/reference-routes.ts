import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type Response, type Router } from 'express';
import type { PublicDocument } from './public-document.js';
import type { RouteSpec } from './route-table.js';
import { INSTALL_ROOT } from '../../openapi/documents.js';

/**
 * The public document and a readable reference of it, as FastAPI services (production is one)
 * serve them: `/openapi.json`, `/openapi.yaml` and `/docs`, without a credential.
 *
 * `/docs` is Swagger UI, the renderer FastAPI's own `/docs` uses, from the exact version of
 * swagger-ui-dist in package.json (a plain static bundle with nothing to load at run time): the
 * page loads nothing from any other host, which its Content-Security-Policy also enforces.
 * swagger-ui-dist is a devDependency: the build copies the files served here into dist/docs-ui/
 * (bin/build-dist.js), so an installed mock carries no swagger-ui-dist, and not the install-time
 * analytics package (@scarf/scarf) it depends on (docs/browser-clients.md says why).
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
    res.sendFile(file, { root: RENDERER_FOLDER });
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

/**
 * The renderer's files: where the build copied them (dist/docs-ui/), or, running the sources, the
 * devDependency's own folder. Found once, when the app is loaded, not on a request.
 */
const BUILT_RENDERER = path.join(INSTALL_ROOT, 'docs-ui');
const RENDERER_FOLDER = existsSync(BUILT_RENDERER)
  ? BUILT_RENDERER
  : path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

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
