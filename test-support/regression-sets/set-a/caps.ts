import { bearer, copyAnswer, isJson, match, memoMap, readJson, writeJson } from '../edit-helpers.js';
import type { Answer, Exchange, Regression } from '../regression.js';
import { editImages } from './image-edits.js';
import { callerOrganization, putAnalysesThisMonth, resendWithCapRaised } from './plan-control.js';

const STORAGE_COUNTED = /^\/api\/v1\/(upload|image)$/;
const PREDICT = /^\/api\/v1\/predict$/;

function isStorageRefusal(exchange: Exchange, answer: Answer): boolean {
  return answer.status === 402 && match(exchange, 'POST', STORAGE_COUNTED) !== null;
}

function isAnalysisRefusal(exchange: Exchange, answer: Answer): boolean {
  return answer.status === 402 && match(exchange, 'POST', PREDICT) !== null;
}

/** A refusal remembered per key for a minute and answered without asking again: a cache never invalidated. */
function stickyRefusal(kind: 'storage' | 'analysis'): Pick<Regression, 'request' | 'response'> {
  const refused = kind === 'storage' ? isStorageRefusal : isAnalysisRefusal;
  const route = kind === 'storage' ? STORAGE_COUNTED : PREDICT;
  return {
    request(exchange, state) {
      if (!match(exchange, 'POST', route)) return;
      const cached = memoMap<string, { answer: Answer; until: number }>(state, `${kind} refusals`).get(
        bearer(exchange) ?? '',
      );
      if (cached && cached.until > Date.now()) return copyAnswer(cached.answer);
    },
    response(exchange, answer, state) {
      if (!refused(exchange, answer)) return;
      memoMap<string, { answer: Answer; until: number }>(state, `${kind} refusals`).set(
        bearer(exchange) ?? '',
        {
          answer: copyAnswer(answer),
          until: Date.now() + 60_000,
        },
      );
    },
  };
}

/** The storage cap (images) and the monthly analysis cap, and what counts against them. */
export const CAP_REGRESSIONS: Regression[] = [
  {
    id: 'A-CAP-STORAGE-GREATER-THAN',
    area: 'caps',
    description:
      'The storage cap is checked with `count > cap` instead of `>=`: one image more than the plan allows is accepted',
    violates:
      'Limits: "Image storage cap, per plan, counted in images; reaching it yields 402 on upload and on image-record creation."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!isStorageRefusal(exchange, answer)) return;
      const retried = await resendWithCapRaised(exchange, state, 'storage_cap_images', 1);
      if (retried) Object.assign(answer, retried);
    },
  },
  {
    id: 'A-CAP-ANALYSIS-GREATER-THAN',
    area: 'caps',
    description:
      'The monthly analysis cap is checked with `used > cap`: one analysis more than the plan allows runs',
    violates: 'Limits: "Monthly analysis cap, per plan; each prediction counts; exceeding yields 402."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!isAnalysisRefusal(exchange, answer)) return;
      const retried = await resendWithCapRaised(exchange, state, 'monthly_analysis_cap', 1);
      if (retried) Object.assign(answer, retried);
    },
  },
  {
    id: 'A-CAP-STORAGE-REFUSAL-CACHED',
    area: 'caps',
    description:
      'A storage-cap refusal is cached per key for a minute: after a delete frees a slot, uploads still answer 402',
    violates:
      'States: "any | DELETE /upload/{image_id} or DELETE /image/{image_id} | ... | removed | slot freed"',
    statedIn: 'interface',
    ...stickyRefusal('storage'),
  },
  {
    id: 'A-CAP-ANALYSIS-REFUSAL-CACHED',
    area: 'caps',
    description:
      'An analysis-cap refusal is cached per key for a minute: a new month (or a raised plan) still answers 402',
    violates:
      'Limits: "Monthly analysis cap, per plan" (the quota is per month; a refusal holds only while the cap is reached)',
    statedIn: 'interface',
    ...stickyRefusal('analysis'),
  },
  {
    id: 'A-CAP-ANALYSIS-DETAIL-NAMES-STORAGE',
    area: 'caps',
    description: 'The analysis-cap 402 reuses the storage-cap message: its detail names the wrong limit',
    violates:
      'Errors: "402 | ... monthly analysis cap reached (predict). `detail` is a human-readable explanation of the limit"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!isAnalysisRefusal(exchange, answer)) return;
      const detail = String(readJson(answer).detail ?? '');
      const allowed = detail.match(/\d+/)?.[0] ?? '0';
      writeJson(answer, {
        detail: `Storage cap reached: your plan allows ${allowed} images and ${allowed} are stored. Delete images to free space or upgrade your plan.`,
      });
    },
  },
  {
    id: 'A-CAP-STORAGE-DETAIL-BARE',
    area: 'caps',
    description: 'The storage-cap 402 answers a bare "Payment Required" detail that explains no limit',
    violates:
      'Errors: "402 | storage cap reached (upload, image-record creation) ... `detail` is a human-readable explanation of the limit"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (isStorageRefusal(exchange, answer)) writeJson(answer, { detail: 'Payment Required' });
    },
  },
  {
    id: 'A-CAP-FAILED-NOT-COUNTED',
    area: 'caps',
    description:
      "The storage count selects images WHERE upload_status != 'failed': aborted and failed images no longer count",
    violates: 'Limits: "Failed or aborted images still count until deleted."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const failed = memoMap<string, string>(state, 'failed images by key');
      const key = bearer(exchange) ?? '';
      const aborted = match(exchange, 'POST', /^\/api\/v1\/upload\/([0-9a-fA-F-]{36})\/abort$/);
      if (aborted && answer.status === 200) failed.set(aborted[1], key);
      editImages(exchange, answer, (image) => {
        if (image.upload_status === 'failed') failed.set(String(image.id), key);
      });
      const deleted = match(exchange, 'DELETE', /^\/api\/v1\/(upload|image)\/([0-9a-fA-F-]{36})$/);
      if (deleted && answer.status === 200) failed.delete(deleted[2]);
      if (!isStorageRefusal(exchange, answer)) return;
      const mine = [...failed.values()].filter((owner) => owner === key).length;
      if (mine === 0) return;
      const retried = await resendWithCapRaised(exchange, state, 'storage_cap_images', mine);
      if (retried) Object.assign(answer, retried);
    },
  },
  {
    id: 'A-CAP-SKIPPED-COUNTS',
    area: 'caps',
    description:
      "A `skipped` predict (identical one in flight) still increments the month's analysis counter",
    violates:
      'POST /predict (document): "An identical prediction ... answers `skipped` with that prediction\'s id and does not count again."',
    statedIn: 'document',
    async response(exchange, answer, state) {
      if (!match(exchange, 'POST', PREDICT) || answer.status !== 200 || !isJson(answer)) return;
      if (readJson(answer).status !== 'skipped') return;
      const org = await callerOrganization(exchange, state);
      if (org) await putAnalysesThisMonth(state, org.id, org.usage.analyses_this_month + 1);
    },
  },
  {
    id: 'A-CAP-REFUSED-PREDICT-COUNTS',
    area: 'caps',
    description:
      'The analysis counter is incremented before the image and model are checked: a predict refused 404 or 422 still counts',
    violates:
      'Limits: "each prediction counts" (a refused request starts no prediction); Predict: "Counts against the monthly analysis quota"',
    statedIn: 'document',
    async response(exchange, answer, state) {
      if (!match(exchange, 'POST', PREDICT) || (answer.status !== 404 && answer.status !== 422)) return;
      const org = await callerOrganization(exchange, state);
      if (org) await putAnalysesThisMonth(state, org.id, org.usage.analyses_this_month + 1);
    },
  },
];
