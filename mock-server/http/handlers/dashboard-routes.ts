import express, { type NextFunction, type Request, type Response } from 'express';
import { dashboardAsset } from '../../control/ui/dashboard-assets.js';
import { DASHBOARD_PATH, renderDashboardPage } from '../../control/ui/render-dashboard-page.js';
import { sendDetail, sendDomainError } from '../error-responses.js';
import { isAdminToken } from '../bearer-auth.js';
import { dashboardReadHandlers, type DashboardReadUseCases } from './dashboard-read-handlers.js';

/**
 * The reads the dashboard adds to the control plane. They are not in the document yet (the YAML
 * is in docs/dashboard.md): while an operationId is missing from it, its route is served here with
 * the control plane's token check; once the document has it, the dispatcher serves it instead.
 */
const READS = [
  { operationId: 'mockListImages', path: '/__mock/images' },
  { operationId: 'mockImageThumbnail', path: '/__mock/images/:image_id/thumbnail.png' },
  { operationId: 'mockListModels', path: '/__mock/organizations/:organization_id/models' },
] as const;

/**
 * /__mock/ui: the page and its client files, served outside the document's routing (they are not
 * API operations, and the page shell holds no state), plus the dashboard's reads. Mounted before
 * the dispatcher.
 */
export function dashboardRoutes(
  useCases: DashboardReadUseCases,
  {
    operationIds,
    adminToken,
  }: {
    /** Every operationId of the document. */
    operationIds: ReadonlySet<string>;
    /** The control plane's token; empty leaves it open. */
    adminToken: string;
  },
): express.Router {
  const router = express.Router({ caseSensitive: true, strict: false });
  const page = renderDashboardPage({ operationIds: [...operationIds], version: '1.1.0' });

  router.get(DASHBOARD_PATH, (_req, res) => {
    res.locals.operationId = 'mockDashboardPage';
    pageHeaders(res);
    res.type('html').send(page);
  });

  router.get(`${DASHBOARD_PATH}/assets/:name`, (req, res) => {
    res.locals.operationId = 'mockDashboardPage';
    const asset = dashboardAsset(req.params.name);
    if (!asset) return sendDetail(res, 404, 'Not Found');
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.type(asset.contentType).send(asset.body);
  });

  const handlers = dashboardReadHandlers(useCases);
  for (const read of READS) {
    if (operationIds.has(read.operationId)) continue;
    router.get(read.path, adminOnly(adminToken), async (req, res, next) => {
      res.locals.operationId = read.operationId;
      try {
        await handlers[read.operationId]({
          operationId: read.operationId,
          req,
          res,
          org: undefined as never,
          params: req.params as Record<string, string>,
          query: req.query as Record<string, unknown>,
          body: undefined,
        });
      } catch (err) {
        if (!sendDomainError(res, err)) next(err);
      }
    });
  }
  return router;
}

/** The dispatcher's check of the `mockAdmin` scheme, word for word (a test holds the two alike). */
function adminOnly(adminToken: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (adminToken && !isAdminToken(req.headers.authorization, adminToken)) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return sendDetail(res, 401, 'The control plane needs Authorization: Bearer <admin token>');
    }
    next();
  };
}

/** Scripts and styles only from this origin; no framing; the page never leaks its URL onward. */
function pageHeaders(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader(
    'Content-Security-Policy',
    [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' blob:",
      "connect-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
  );
}
