import type { Regression } from '../regression.js';
import { bearer, isUuid, jsonAnswer, match, memoMap, readJson, writeJson } from '../edit-helpers.js';
import { analysisCapDetail, okJson, orgOf, requestJson, usageOf } from './kit.js';

const PREDICT = /^\/api\/v1\/predict$/;

interface Run {
  id: string;
  key: string;
}

/** The storage cap and the monthly analysis cap. */
export const CAPS: Regression[] = [
  {
    id: 'I-CAP-STORAGE-DETAIL-DEFAULT-PLAN',
    area: 'caps',
    description:
      'The storage-cap message is formatted from the default plan\'s settings instead of the organization\'s: every 402 says "the starter plan allows 50 images", whatever the plan (a trial organization stopped at 2 is told it may store 50)',
    violates: '"402 | storage cap reached [...] `detail` is a human-readable explanation of the limit"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (exchange.method !== 'POST' || answer.status !== 402) return;
      if (!/^\/api\/v1\/(?:upload|image)$/.test(exchange.path.split('?')[0])) return;
      const { detail } = readJson<{ detail?: unknown }>(answer);
      if (typeof detail !== 'string') return;
      const wrong = detail.replace(/the \S+ plan allows \d+ images/, 'the starter plan allows 50 images');
      if (wrong !== detail) writeJson(answer, { detail: wrong });
    },
  },
  {
    id: 'I-CAP-FAILED-RUN-COUNTS-TWICE',
    area: 'caps',
    description:
      "A run that fails is retried once by the worker, and the retry increments the month's analysis counter again: every FAILED prediction costs two analyses, so an organization reaches its monthly cap early (a trial organization with one failed run is refused its second analysis)",
    violates: '"Monthly analysis cap, per plan; each prediction counts; exceeding yields 402."',
    statedIn: 'interface',
    async request(exchange, state) {
      if (!match(exchange, 'POST', PREDICT)) return;
      const org = orgOf(exchange, state);
      if (!org) return;
      const runs = memoMap<string, Run[]>(state, 'runs').get(org.id) ?? [];
      const failed = memoMap<string, true>(state, 'failed-runs');
      const settled = memoMap<string, true>(state, 'settled-runs');
      for (const run of runs) {
        if (settled.has(run.id)) continue;
        const read = await state.upstream('GET', `/api/v1/predict/${run.id}`, { key: run.key });
        const status = read.status === 200 ? readJson<{ status?: string }>(read).status : 'GONE';
        if (status === 'FAILED') failed.set(run.id, true);
        if (status === 'FAILED' || status === 'COMPLETED' || status === 'GONE') settled.set(run.id, true);
      }
      const extra = runs.filter((run) => failed.has(run.id)).length;
      if (!extra) return;
      const usage = await usageOf(state, org.id);
      if (!usage) return;
      const used = usage.usage.analyses_this_month + extra;
      if (used < usage.plan.monthly_analysis_cap) return;
      return jsonAnswer(402, { detail: analysisCapDetail(usage, used) });
    },
    response(exchange, answer, state) {
      if (!match(exchange, 'POST', PREDICT)) return;
      const ack = okJson(answer);
      const org = orgOf(exchange, state);
      const key = bearer(exchange);
      if (ack?.status !== 'submitted' || !org || !key) return;
      const runs = memoMap<string, Run[]>(state, 'runs');
      runs.set(org.id, [...(runs.get(org.id) ?? []), { id: String(ack.prediction_id), key }]);
    },
  },
  {
    id: 'I-CAP-QUOTA-BEFORE-VALIDATION',
    area: 'caps',
    description:
      'The monthly-quota dependency runs before the body is validated: an organization at its cap that sends a malformed id is answered 402 instead of the 422 that tells the client its request is wrong',
    violates:
      '"Errors: 401, 402 (monthly analysis cap), 404 (image or model outside the organization or missing), 422 (non-UUID id)." and "422 | a path or body id is not a valid UUID (rejected before reaching storage)"',
    statedIn: 'interface',
    async request(exchange, state) {
      if (!match(exchange, 'POST', PREDICT)) return;
      const body = requestJson(exchange);
      if (isUuid(body.image_id) && isUuid(body.model_id)) return;
      const org = orgOf(exchange, state);
      const usage = org && (await usageOf(state, org.id));
      if (!usage || usage.usage.analyses_this_month < usage.plan.monthly_analysis_cap) return;
      return jsonAnswer(402, { detail: analysisCapDetail(usage, usage.usage.analyses_this_month) });
    },
  },
  {
    id: 'I-CAP-ANALYSIS-PER-KEY',
    area: 'caps',
    description:
      "The month's analysis counter is keyed by the API key instead of the organization: an organization with two keys runs up to twice its plan's analyses a month (each key is refused only when it alone reached the cap)",
    violates: '"Monthly analysis cap, per plan; each prediction counts; exceeding yields 402."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'POST', PREDICT)) return;
      const key = bearer(exchange);
      const org = orgOf(exchange, state);
      if (!key || !org) return;
      const perKey = memoMap<string, number>(state, 'analyses-per-key');
      const keys = new Set(state.organizations.filter((o) => o.id === org.id).map((o) => o.key)).size;
      if (answer.status === 402 && keys > 1) {
        const usage = await usageOf(state, org.id);
        if (!usage || (perKey.get(key) ?? 0) >= usage.plan.monthly_analysis_cap) return;
        const usagePath = `/__mock/organizations/${org.id}/usage`;
        const before = usage.usage.analyses_this_month;
        await state.upstream('PUT', usagePath, { body: { analyses_this_month: 0 } });
        const again = await state.resend(exchange);
        const accepted = okJson(again)?.status === 'submitted';
        await state.upstream('PUT', usagePath, {
          body: { analyses_this_month: before + (accepted ? 1 : 0) },
        });
        answer.status = again.status;
        answer.headers = again.headers;
        answer.body = again.body;
      }
      if (okJson(answer)?.status === 'submitted') perKey.set(key, (perKey.get(key) ?? 0) + 1);
    },
  },
];
