import { createReadStream, existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ApiRequest, ApiResponse } from './exchange.js';
import type { publicDocument } from './public-document.js';
import type { RequestStage } from './request-pipeline.js';
import { sendSizedBody } from './send-sized-body.js';
import type { RouteSpec } from './route-table.js';
import { INSTALL_ROOT } from '../../openapi/documents.js';
import { decodeSegment } from './path-segment.js';

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
export function referenceStage({ publicBaseUrl }: { publicBaseUrl: string }): RequestStage {
  let document: Promise<ReturnType<typeof publicDocument>> | undefined;
  // Read on first request, not at start: nothing here may hold back the mock's first answer.
  const served = () =>
    (document ??= import('./public-document.js').then((m) => m.publicDocument(publicBaseUrl)));

  return function reference(req, res) {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    // Without regard to case, and with or without a trailing slash, as express matched them.
    const route = (req.path.length > 1 ? req.path.replace(/\/$/, '') : req.path).toLowerCase();
    switch (route) {
      case '/openapi.json':
        return served().then(({ json }) => res.type('application/json').send(json));
      case '/openapi.yaml':
        return served().then(({ yaml }) => res.type('application/yaml; charset=utf-8').send(yaml));
      case '/docs':
        referenceHeaders(res, publicBaseUrl);
        res.type('html').send(PAGE);
        return true;
      case '/docs/swagger-initializer.js':
        referenceHeaders(res, publicBaseUrl);
        res.type('text/javascript').send(INITIALIZER);
        return true;
    }
    const asset = route.startsWith('/docs/') ? assetOf(req.path.slice('/docs/'.length)) : undefined;
    if (!asset) return false;
    res.setHeader('Cache-Control', 'public, max-age=3600');
    return sendAsset(req, res, asset);
  };
}

/** One of the renderer's file names from the URL (decoded, case as sent), or none. */
function assetOf(segment: string): string | undefined {
  const name = decodeSegment(segment.replace(/\/$/, ''));
  return name !== undefined && ASSET_TYPES.has(name) ? name : undefined;
}

async function sendAsset(req: ApiRequest, res: ServerResponse, name: string): Promise<void> {
  const file = path.join(RENDERER_FOLDER, name);
  const { size, mtime } = await stat(file);
  res.setHeader('Content-Type', ASSET_TYPES.get(name)!);
  res.setHeader('Content-Length', size);
  res.setHeader('Last-Modified', mtime.toUTCString());
  // A browser revalidating its copy gets 304, not the bundle again (RFC 9110 13.1.3; whole seconds).
  const since = Date.parse(req.headers['if-modified-since'] ?? '');
  if (Math.floor(mtime.getTime() / 1000) * 1000 <= since) {
    res.removeHeader('Content-Length');
    res.removeHeader('Content-Type');
    res.statusCode = 304;
    res.end();
  } else if (req.method === 'HEAD') res.end();
  else await sendSizedBody(createReadStream(file), res, size);
}

/** The routes above, for the app's route table (405 Allow, CORS preflights). */
export function referenceRoutes(): RouteSpec[] {
  return ['/openapi.json', '/openapi.yaml', '/docs', '/docs/{asset}'].flatMap((template) =>
    ['GET', 'HEAD'].map((method) => ({ template, method, headers: [] })),
  );
}

/** The renderer's files served, by file name, with their Content-Type. */
const ASSET_TYPES = new Map<string, string>([
  ['swagger-ui.css', 'text/css; charset=UTF-8'],
  ['swagger-ui-bundle.js', 'application/javascript; charset=UTF-8'],
  ['favicon-32x32.png', 'image/png'],
]);

/**
 * The renderer's files: where the build copied them (dist/docs-ui/), or, running the sources, the
 * devDependency's own folder. Found once, when the app is loaded, not on a request.
 */
const BUILT_RENDERER = path.join(INSTALL_ROOT, 'docs-ui');
const RENDERER_FOLDER = existsSync(BUILT_RENDERER)
  ? BUILT_RENDERER
  : path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

function referenceHeaders(res: ApiResponse, publicBaseUrl: string): void {
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
