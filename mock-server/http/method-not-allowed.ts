import { answerAfterDiscardingRest, type DiscardLimits } from './discard-rest.js';
import { sendDetail } from './error-responses.js';
import type { RequestStage } from './request-pipeline.js';
import type { RouteTable } from './route-table.js';

/**
 * A known path asked with a method it does not take: 405 with `Allow` (RFC 9110 §15.5.6), and the
 * body FastAPI answers. OPTIONS on a known path lists the methods (a CORS preflight is answered
 * before this, by cors.ts).
 */
export function methodNotAllowed(routes: RouteTable, discardLimits: DiscardLimits): RequestStage {
  return function answerMethods(req, res) {
    if (routes.answers(req.path, req.method as string)) return false;
    const route = routes.lookup(req.path);
    if (!route) return false;
    const allow = [...route.methods, 'OPTIONS'].join(', ');
    res.setHeader('Allow', allow);
    return answerAfterDiscardingRest(req, res, discardLimits, () => {
      if (req.method === 'OPTIONS') res.status(204).end();
      else sendDetail(res, 405, 'Method Not Allowed');
    });
  };
}
