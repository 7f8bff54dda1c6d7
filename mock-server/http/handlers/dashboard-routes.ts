import { dashboardAsset } from '../../control/ui/dashboard-assets.js';
import { DASHBOARD_PATH, renderDashboardPage } from '../../control/ui/render-dashboard-page.js';
import { sendDetail } from '../error-responses.js';
import type { ApiResponse } from '../exchange.js';
import type { RequestStage } from '../request-pipeline.js';
import { decodeSegment, escapeRegExp } from '../path-segment.js';

/**
 * /__mock/ui: the page and its client files, served outside the document's routing (they are not
 * API operations, and the page shell holds no state). The reads the page makes are the control
 * document's operations, served by the dispatcher. Mounted before it.
 */
export function dashboardRoutes(
  /** Every operationId of the document: the targets the fault form offers. */
  operationIds: ReadonlySet<string>,
): RequestStage {
  const page = renderDashboardPage(operationIds);
  const pagePattern = new RegExp(`^${escapeRegExp(DASHBOARD_PATH)}/?$`);
  const assetPattern = new RegExp(`^${escapeRegExp(DASHBOARD_PATH)}/assets/([^/]+)/?$`);

  return function dashboard(req, res) {
    // Every path here is under /__mock/ui (case-sensitive, as the express router was).
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !req.path.startsWith(DASHBOARD_PATH)) return false;
    if (pagePattern.test(req.path)) {
      res.locals.operationId = 'mockDashboardPage';
      pageHeaders(res);
      res.type('html').send(page);
      return true;
    }
    const assetPath = assetPattern.exec(req.path);
    if (!assetPath) return false;
    res.locals.operationId = 'mockDashboardPage';
    const asset = dashboardAsset(decodeSegment(assetPath[1]) ?? '');
    if (!asset) sendDetail(res, 404, 'Not Found');
    else {
      res.setHeader('Cache-Control', 'no-cache');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.type(asset.contentType).send(asset.body);
    }
    return true;
  };
}

/** Scripts and styles only from this origin; no framing; the page never leaks its URL onward. */
function pageHeaders(res: ApiResponse): void {
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
