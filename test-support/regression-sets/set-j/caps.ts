import type { Answer, Exchange, ProxyState, Regression } from '../regression.js';
import { match, memoMap, pathname } from '../edit-helpers.js';
import {
  addsImage,
  canonicalId,
  errorAnswer,
  okJson,
  orgOf,
  orgView,
  replaceAnswer,
  requestJson,
  ROUTES,
  serialized,
  setAnalyses,
  setPlan,
  storedImages,
  type OrgView,
} from './kit.js';

function storageCapDetail(view: OrgView, stored: number): string {
  return (
    `Storage cap reached: your plan allows ${view.plan.storage_cap_images} images and ${stored} are stored. ` +
    'Delete images to free space or upgrade your plan.'
  );
}

/**
 * The request sent again with the organization's image cap raised above what it stores for the time
 * it takes: what a backend whose own count let the request through ends up storing, past the plan.
 */
async function storePastCap(
  state: ProxyState,
  exchange: Exchange,
  orgId: string,
): Promise<Answer | undefined> {
  return serialized(state, `plan:${orgId}`, async () => {
    const view = await orgView(state, orgId);
    if (!view) return undefined;
    const cap = Math.max(view.plan.storage_cap_images, view.usage.images) + 1;
    const raised = { ...view.plan, storage_cap_images: cap };
    if (!(await setPlan(state, orgId, raised))) return undefined;
    try {
      return await state.resend(exchange);
    } finally {
      await setPlan(state, orgId, view.plan);
    }
  });
}

/** Uploads of one organization that overlap in time, and its image count when the first of them began. */
interface UploadBurst {
  members: Set<Exchange>;
  /** How many requests took part in the burst, those already answered included. */
  joined: number;
  started: number;
  base: Promise<OrgView | undefined>;
}

/** Set J, the storage and monthly analysis caps. */
export const CAPS: Regression[] = [
  {
    id: 'J-CAP-ANALYSES-COUNT-IMAGES',
    area: 'caps',
    description:
      'The month\'s analysis count is `COUNT(DISTINCT image_id)` (the billing report\'s "images analysed") where each prediction should count: a second or third model run on an image already analysed this month is free, so an organization at its cap keeps predicting on the images it analysed',
    violates: '"Monthly analysis cap, per plan; each prediction counts; exceeding yields 402."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const org = orgOf(exchange, state);
      if (!match(exchange, 'POST', ROUTES.predict) || !org) return;
      const image = canonicalId(requestJson(exchange).image_id);
      const submitted = okJson(answer)?.status === 'submitted';
      if (!submitted && answer.status !== 402) return;
      const current = await orgView(state, org.id);
      if (!current) return;
      // The images analysed in the organization's current month (its clock may have been moved).
      const analysed = memoMap<string, true>(state, `analysed:${org.id}:${current.usage.month}`);
      if (submitted) return void analysed.set(image, true);
      if (!analysed.has(image) || analysed.size >= current.plan.monthly_analysis_cap) return;
      const retried = await serialized(state, `usage:${org.id}`, async () => {
        const view = await orgView(state, org.id);
        if (!view) return undefined;
        if (!(await setAnalyses(state, org.id, view.usage.analyses_this_month - 1))) return undefined;
        return state.resend(exchange);
      });
      if (retried) replaceAnswer(answer, retried);
    },
  },
  {
    id: 'J-CAP-STORAGE-COUNTS-JOIN-ROWS',
    area: 'caps',
    description:
      "The storage count is `COUNT(*)` over images LEFT JOIN predictions (the join was added to skip images whose runs are being deleted): an image with two predictions counts twice, so an organization that ran several models on its images is refused uploads (402) before it stores its plan's number of images",
    violates:
      '"Image storage cap, per plan, counted in images; reaching it yields 402 on upload and on image-record creation."',
    statedIn: 'interface',
    async request(exchange, state) {
      const org = orgOf(exchange, state);
      if (!addsImage(exchange) || !org) return;
      const view = await orgView(state, org.id);
      if (!view || view.usage.images >= view.plan.storage_cap_images) return;
      const rows = (await storedImages(state, org.id)).reduce(
        (sum, image) => sum + Math.max(1, image.predictions?.length ?? 0),
        0,
      );
      if (rows >= view.plan.storage_cap_images) return errorAnswer(402, storageCapDetail(view, rows));
    },
  },
  {
    id: 'J-CAP-STORAGE-CONCURRENT-PAST-CAP',
    area: 'caps',
    description:
      'The storage cap is checked on a count read before the insert, with no lock and no conditional insert: uploads (or image-record creations) sent at once into the last free slot all pass, and the organization ends past its plan',
    violates:
      '"Image storage cap, per plan, counted in images; reaching it yields 402 on upload and on image-record creation."',
    statedIn: 'interface',
    request(exchange, state) {
      const org = orgOf(exchange, state);
      if (!addsImage(exchange) || !org) return;
      const bursts = memoMap<string, UploadBurst>(state, 'bursts');
      let burst = bursts.get(org.id);
      if (!burst || burst.members.size === 0 || Date.now() - burst.started > 60_000) {
        burst = { members: new Set(), joined: 0, started: Date.now(), base: orgView(state, org.id) };
        bursts.set(org.id, burst);
      }
      burst.members.add(exchange);
      burst.joined++;
      memoMap<Exchange, UploadBurst>(state, 'burst-of').set(exchange, burst);
    },
    async response(exchange, answer, state) {
      const burstOf = memoMap<Exchange, UploadBurst>(state, 'burst-of');
      const burst = burstOf.get(exchange);
      const org = orgOf(exchange, state);
      if (!burst || !org) return;
      burstOf.delete(exchange);
      const base = await burst.base;
      const raced = burst.joined > 1;
      burst.members.delete(exchange);
      if (answer.status !== 402 || !raced || !base) return;
      if (base.usage.images >= base.plan.storage_cap_images) return;
      const stored = await storePastCap(state, exchange, org.id);
      if (stored) replaceAnswer(answer, stored);
    },
  },
  {
    id: 'J-CAP-STORAGE-BLOCKS-SHARE',
    area: 'caps',
    description:
      'POST /shares pre-renders the public page\'s preview into storage and so went through the storage-cap guard of every write that stores files: an organization at its image cap is refused 402 "Storage cap reached" when it shares a result',
    violates:
      '"402 | storage cap reached (upload, image-record creation)" (POST /shares: "Errors: 401; 404 ...; 422")',
    statedIn: 'interface',
    async request(exchange, state) {
      const org = orgOf(exchange, state);
      if (exchange.method !== 'POST' || !ROUTES.shares.test(pathname(exchange)) || !org) return;
      const view = await orgView(state, org.id);
      if (view && view.usage.images >= view.plan.storage_cap_images)
        return errorAnswer(402, storageCapDetail(view, view.usage.images));
    },
  },
];
