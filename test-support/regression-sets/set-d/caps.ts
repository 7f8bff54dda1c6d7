import type { Regression } from '../regression.js';
import { caller, isJson, jsonAnswer, match, memoMap, readJson } from '../edit-helpers.js';
import { callerStatus, organizations } from './common.js';

const OPENS_IMAGE = /^\/api\/v1\/(?:upload|image)$/;

export const CAPS: Regression[] = [
  {
    id: 'D-CAP-ANALYSIS-LAST-REFUSED',
    area: 'caps',
    description:
      "The analysis check counts the run being started twice (`used + 1 >= cap`): the plan's last analysis of the month is refused 402",
    violates: '"Monthly analysis cap, per plan; each prediction counts; exceeding yields 402."',
    statedIn: 'interface',
    async request(exchange, state) {
      if (!match(exchange, 'POST', /^\/api\/v1\/predict$/)) return;
      const org = await callerStatus(exchange, state);
      if (org && org.usage.analyses_this_month + 1 >= org.plan.monthly_analysis_cap)
        return jsonAnswer(402, {
          detail: `Monthly analysis cap reached: your plan allows ${org.plan.monthly_analysis_cap} analyses per month.`,
        });
    },
  },
  {
    id: 'D-CAP-STORAGE-COUNTS-ALL-ORGS',
    area: 'caps',
    description:
      "The storage count lost its organization filter: every organization's images are counted against the caller's cap",
    violates:
      '"Image storage cap, per plan, counted in images; reaching it yields 402 on upload and on image-record creation."',
    statedIn: 'interface',
    async request(exchange, state) {
      if (!match(exchange, 'POST', OPENS_IMAGE)) return;
      const all = await organizations(state);
      const mine = all.find((org) => org.id === caller(exchange, state)?.id);
      if (!mine) return;
      const total = all.reduce((sum, org) => sum + org.usage.images, 0);
      if (total >= mine.plan.storage_cap_images)
        return jsonAnswer(402, {
          detail: `Storage cap reached: your plan allows ${mine.plan.storage_cap_images} images. Delete images to free space.`,
        });
    },
  },
  {
    id: 'D-CAP-ANALYSIS-BLOCKS-POLL',
    area: 'caps',
    description:
      "The quota dependency was attached to the whole predictions router: once the month's analyses are used up, polling a prediction already run answers 402",
    violates:
      '"402 | storage cap reached (upload, image-record creation); monthly analysis cap reached (predict)." / GET /predict/{id} errors: 401, 404, 422',
    statedIn: 'interface',
    async request(exchange, state) {
      if (!match(exchange, 'GET', /^\/api\/v1\/predict\/([^/]+)$/)) return;
      const org = await callerStatus(exchange, state);
      if (org && org.usage.analyses_this_month >= org.plan.monthly_analysis_cap)
        return jsonAnswer(402, {
          detail: `Monthly analysis cap reached: your plan allows ${org.plan.monthly_analysis_cap} analyses per month.`,
        });
    },
  },
  {
    id: 'D-CAP-STORAGE-JSON-MODE-UNCHECKED',
    area: 'caps',
    description:
      'Only the multipart branch of POST /upload checks the storage cap: opening a resumable upload (JSON mode) past the cap is accepted',
    violates: '**POST `/api/v1/upload`** "Errors: 401, 402 (storage cap, both modes)."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'POST', /^\/api\/v1\/upload$/) || answer.status !== 402) return;
      if (!(exchange.headers.get('content-type') ?? '').includes('json')) return;
      const org = await callerStatus(exchange, state);
      if (!org) return;
      const path = `/__mock/organizations/${org.id}/plan`;
      const raised = { ...org.plan, storage_cap_images: org.usage.images + 1 };
      if ((await state.upstream('PUT', path, { body: raised })).status !== 200) return;
      try {
        Object.assign(answer, await state.resend(exchange));
      } finally {
        await state.upstream('PUT', path, { body: org.plan });
      }
    },
  },
  {
    id: 'D-CAP-ANALYSIS-REFUNDED-ON-DELETE',
    area: 'caps',
    description:
      "The month's analysis count is recomputed from the predictions still stored: deleting an image gives its analyses back, so a capped organization predicts again",
    violates: '"Monthly analysis cap, per plan; each prediction counts; exceeding yields 402."',
    statedIn: 'interface',
    async request(exchange, state) {
      const found = match(exchange, 'DELETE', /^\/api\/v1\/(?:upload|image)\/([^/]+)$/);
      const org = found && caller(exchange, state);
      if (!found || !org) return;
      const listed = await state.upstream('GET', `/__mock/images?organization_id=${org.id}`);
      if (listed.status !== 200 || !isJson(listed)) return;
      const image = readJson<Array<{ id: string; predictions?: unknown[] }>>(listed).find(
        (i) => i.id === found[1].toLowerCase(),
      );
      memoMap<string, number>(state, 'refund').set(exchange.path, image?.predictions?.length ?? 0);
    },
    async response(exchange, answer, state) {
      const refund = memoMap<string, number>(state, 'refund').get(exchange.path) ?? 0;
      memoMap<string, number>(state, 'refund').delete(exchange.path);
      if (answer.status !== 200 || refund === 0) return;
      const org = await callerStatus(exchange, state);
      if (!org) return;
      await state.upstream('PUT', `/__mock/organizations/${org.id}/usage`, {
        body: { analyses_this_month: Math.max(0, org.usage.analyses_this_month - refund) },
      });
    },
  },
];
