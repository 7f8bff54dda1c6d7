import { bearer, caller, isJson, jsonAnswer, match, memoMap, readJson } from '../edit-helpers.js';
import type { Exchange, ProxyState, Regression } from '../regression.js';
import {
  CREATE_IMAGE,
  PREDICT,
  UPLOAD,
  analysisCapDetail,
  orgRecord,
  replaceAnswer,
  storageCapDetail,
  type OrgRecord,
} from './shared.js';

/** Whether the request adds an image (either upload mode, or image-record creation). */
function addsImage(exchange: Exchange): boolean {
  return !!(match(exchange, 'POST', UPLOAD) ?? match(exchange, 'POST', CREATE_IMAGE));
}

/** Resumable uploads the caller opened that are still `uploading`, by the service's own read. */
async function stillUploading(exchange: Exchange, state: ProxyState, orgId: string): Promise<number> {
  const opened = memoMap<string, string[]>(state, 'opened').get(orgId) ?? [];
  let count = 0;
  for (const id of opened) {
    const read = await state.upstream('GET', `/api/v1/upload/${id}`, { key: bearer(exchange) });
    if (read.status === 200 && readJson<{ upload_status: string }>(read).upload_status === 'uploading')
      count++;
  }
  return count;
}

/** The plan an organization had at its first request, kept for the process's life. */
async function cachedPlan(exchange: Exchange, state: ProxyState): Promise<OrgRecord['plan'] | undefined> {
  const org = caller(exchange, state);
  if (!org) return undefined;
  const plans = memoMap<string, OrgRecord['plan']>(state, 'plans');
  if (!plans.has(org.id)) {
    const record = await orgRecord(exchange, state);
    if (record) plans.set(org.id, { ...record.plan });
  }
  return plans.get(org.id);
}

/** The two caps of a plan: images stored, analyses a month. */
export const CAP_REGRESSIONS: Regression[] = [
  {
    id: 'F-CAP-SKIPPED-AT-CAP-402',
    area: 'caps',
    description:
      'The monthly cap check runs before the duplicate check: at the cap, repeating a predict whose identical run is still in flight answers 402 instead of `skipped` with that run',
    violates:
      '"`skipped` when an identical prediction is already in flight" (and createPrediction: an identical prediction in flight "answers `skipped` with that prediction\'s id and does not count again")',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'POST', PREDICT) || answer.status !== 200 || !isJson(answer)) return;
      if (readJson<{ status: string }>(answer).status !== 'skipped') return;
      const record = await orgRecord(exchange, state);
      if (!record || record.usage.analyses_this_month < record.plan.monthly_analysis_cap) return;
      const { monthly_analysis_cap: cap } = record.plan;
      replaceAnswer(
        answer,
        jsonAnswer(402, { detail: analysisCapDetail(record, cap, record.usage.analyses_this_month) }),
      );
    },
  },
  {
    id: 'F-CAP-OPEN-UPLOAD-COUNTS-TWICE',
    area: 'caps',
    description:
      'The storage count adds the open multipart uploads to the image rows, and an open resumable upload is both: each image still `uploading` takes two slots, so the cap is reached early',
    violates:
      '"Image storage cap, per plan, counted in images; reaching it yields 402 on upload and on image-record creation."',
    statedIn: 'interface',
    async request(exchange, state) {
      if (!addsImage(exchange)) return;
      const record = await orgRecord(exchange, state);
      if (!record) return;
      const stored = record.usage.images + (await stillUploading(exchange, state, record.id));
      if (stored < record.plan.storage_cap_images) return;
      return jsonAnswer(402, { detail: storageCapDetail(record, record.plan.storage_cap_images, stored) });
    },
    response(exchange, answer, state) {
      if (!addsImage(exchange) || answer.status !== 200 || !isJson(answer)) return;
      const body = readJson<{
        id?: string;
        image?: { id: string; upload_status: string };
        upload_status?: string;
      }>(answer);
      const org = caller(exchange, state);
      const image = body.image ?? { id: body.id ?? '', upload_status: body.upload_status ?? '' };
      if (!org || image.upload_status !== 'uploading') return;
      const opened = memoMap<string, string[]>(state, 'opened');
      opened.set(org.id, [...(opened.get(org.id) ?? []), image.id]);
    },
  },
  {
    id: 'F-CAP-STORAGE-BLOCKS-PREDICT',
    area: 'caps',
    description:
      'Predict writes a segmentation, and the storage-cap guard was put on every write that stores files: an organization at its image cap is refused 402 "Storage cap reached" on predict, with analyses left',
    violates:
      '"402 | storage cap reached (upload, image-record creation); monthly analysis cap reached (predict)" / "Monthly analysis cap, per plan; each prediction counts; exceeding yields 402."',
    statedIn: 'interface',
    async request(exchange, state) {
      if (!match(exchange, 'POST', PREDICT)) return;
      const record = await orgRecord(exchange, state);
      if (!record || record.usage.images < record.plan.storage_cap_images) return;
      return jsonAnswer(402, {
        detail: storageCapDetail(record, record.plan.storage_cap_images, record.usage.images),
      });
    },
  },
  {
    id: 'F-CAP-PLAN-CACHED-FOREVER',
    area: 'caps',
    description:
      "Each process reads an organization's plan at its first request and keeps it: after the plan changes in the dashboard (an upgrade), uploads and predicts are still held to the old caps",
    violates:
      '"Image storage cap, per plan, counted in images" / "Monthly analysis cap, per plan; each prediction counts; exceeding yields 402."',
    statedIn: 'interface',
    async request(exchange, state) {
      if (!exchange.path.startsWith('/api/v1/')) return;
      const plan = await cachedPlan(exchange, state);
      const predicts = !!match(exchange, 'POST', PREDICT);
      if (!plan || (!predicts && !addsImage(exchange))) return;
      const record = await orgRecord(exchange, state);
      if (!record) return;
      if (predicts && record.usage.analyses_this_month >= plan.monthly_analysis_cap)
        return jsonAnswer(402, {
          detail: analysisCapDetail(record, plan.monthly_analysis_cap, record.usage.analyses_this_month),
        });
      if (!predicts && record.usage.images >= plan.storage_cap_images)
        return jsonAnswer(402, {
          detail: storageCapDetail(record, plan.storage_cap_images, record.usage.images),
        });
    },
  },
  {
    id: 'F-CAP-ANALYSIS-COUNTED-AT-COMPLETION',
    area: 'caps',
    description:
      "The month's analyses are counted by the worker when a run finishes, not when predict accepts it: at the cap's edge, predicts sent while earlier runs are still queued are all accepted, past the plan",
    violates:
      '"Monthly analysis cap, per plan; each prediction counts; exceeding yields 402." / "Counts against the monthly analysis quota."',
    statedIn: 'interface',
    async request(exchange, state) {
      if (!match(exchange, 'POST', PREDICT)) return;
      const record = await orgRecord(exchange, state);
      const queued = memoMap<string, string[]>(state, 'queued').get(record?.id ?? '') ?? [];
      if (!record || record.usage.analyses_this_month < record.plan.monthly_analysis_cap) return;
      let running = 0;
      for (const id of queued) {
        const read = await state.upstream('GET', `/api/v1/predict/${id}`, { key: bearer(exchange) });
        if (
          read.status === 200 &&
          ['SUBMITTED', 'STARTED'].includes(readJson<{ status: string }>(read).status)
        )
          running++;
      }
      if (!running) return;
      // What the worker's counter holds: the runs still queued are not counted yet.
      await state.upstream('PUT', `/__mock/organizations/${record.id}/usage`, {
        body: { analyses_this_month: Math.max(0, record.usage.analyses_this_month - running) },
      });
    },
    response(exchange, answer, state) {
      const org = caller(exchange, state);
      if (!org || !match(exchange, 'POST', PREDICT) || answer.status !== 200 || !isJson(answer)) return;
      const ack = readJson<{ prediction_id: string; status: string }>(answer);
      if (ack.status !== 'submitted') return;
      const queued = memoMap<string, string[]>(state, 'queued');
      queued.set(org.id, [...(queued.get(org.id) ?? []), ack.prediction_id]);
    },
  },
];
