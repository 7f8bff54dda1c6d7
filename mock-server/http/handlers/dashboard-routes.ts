import { dashboardAsset } from '../../control/ui/dashboard-assets.js';
import { DASHBOARD_PATH, renderDashboardPage } from '../../control/ui/render-dashboard-page.js';
import { sendDetail, sendDomainError } from '../error-responses.js';
import { isAdminToken } from '../bearer-auth.js';
import type { ApiRequest, ApiResponse } from '../exchange.js';
import type { RequestStage } from '../request-pipeline.js';
import { dashboardReadHandlers, type DashboardReadUseCases } from './dashboard-read-handlers.js';
import { decodeSegment, escapeRegExp } from '../path-segment.js';

/**
 * The reads the dashboard adds to the control plane. They are not in the document yet (the YAML
 * is in docs/dashboard.md): while an operationId is missing from it, its route is served here with
 * the control plane's token check; once the document has it, the dispatcher serves it instead.
 */
const READS = [
  { operationId: 'mockListImages', pattern: /^\/__mock\/images\/?$/, names: [] },
  {
    operationId: 'mockImageThumbnail',
    pattern: /^\/__mock\/images\/([^/]+)\/thumbnail\.png\/?$/,
    names: ['image_id'],
  },
  {
    operationId: 'mockListModels',
    pattern: /^\/__mock\/organizations\/([^/]+)\/models\/?$/,
    names: ['organization_id'],
  },
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
): RequestStage {
  const page = renderDashboardPage({ operationIds: [...operationIds], version: '1.1.0' });
  const handlers = dashboardReadHandlers(useCases);
  const reads = READS.filter((read) => !operationIds.has(read.operationId));
  const pagePattern = new RegExp(`^${escapeRegExp(DASHBOARD_PATH)}/?$`);
  const assetPattern = new RegExp(`^${escapeRegExp(DASHBOARD_PATH)}/assets/([^/]+)/?$`);

  return function dashboard(req, res) {
    // Every path here is under /__mock/ (case-sensitive, as the express router was).
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !req.path.startsWith('/__mock/')) return false;
    if (pagePattern.test(req.path)) {
      res.locals.operationId = 'mockDashboardPage';
      pageHeaders(res);
      res.type('html').send(page);
      return true;
    }
    const assetPath = assetPattern.exec(req.path);
    if (assetPath) {
      res.locals.operationId = 'mockDashboardPage';
      const asset = dashboardAsset(decodeSegment(assetPath[1]) ?? '');
      if (!asset) sendDetail(res, 404, 'Not Found');
      else {
        res.setHeader('Cache-Control', 'no-cache');
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.type(asset.contentType).send(asset.body);
      }
      return true;
    }
    for (const read of reads) {
      const found = read.pattern.exec(req.path);
      if (!found) continue;
      const params = paramsOf(read.names, found);
      if (!params) return false;
      res.locals.operationId = read.operationId;
      if (!adminAllowed(req, res, adminToken)) return true;
      return (async () => {
        try {
          await handlers[read.operationId]({
            operationId: read.operationId,
            req,
            res,
            org: undefined as never,
            params,
            query: req.query,
            body: undefined,
          });
        } catch (err) {
          if (!sendDomainError(res, err)) throw err;
        }
      })();
    }
    return false;
  };
}

function paramsOf(names: readonly string[], found: RegExpExecArray): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (const [i, name] of names.entries()) {
    const value = decodeSegment(found[i + 1]);
    if (value === undefined) return undefined;
    params[name] = value;
  }
  return params;
}

/** The dispatcher's check of the `mockAdmin` scheme, word for word (a test holds the two alike). */
function adminAllowed(req: ApiRequest, res: ApiResponse, adminToken: string): boolean {
  if (adminToken && !isAdminToken(req.headers.authorization, adminToken)) {
    res.setHeader('WWW-Authenticate', 'Bearer');
    sendDetail(res, 401, 'The control plane needs Authorization: Bearer <admin token>');
    return false;
  }
  return true;
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
