import { bearer, jsonAnswer, match, pathname, readJson } from '../edit-helpers.js';
import type { Exchange, Regression } from '../regression.js';
import { imageOf, operatorImages, operatorView, replaceAnswer, resendPastCap } from './tools.js';

/** The plan's caps: images stored and analyses per month. */

function opensImage(exchange: Exchange): boolean {
  const route = pathname(exchange);
  return exchange.method === 'POST' && (route === '/api/v1/upload' || route === '/api/v1/image');
}

export const CAPS: Regression[] = [
  {
    id: 'C-CAP-CREATE-IMAGE-UNCHECKED',
    area: 'caps',
    description:
      'Image-record creation (POST /image) lost its storage-cap check (only POST /upload has it): a record is created past the cap',
    violates:
      '"Counts against the storage cap at creation; returns 402 when the cap is reached, before any bytes are uploaded."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (exchange.method !== 'POST' || pathname(exchange) !== '/api/v1/image' || answer.status !== 402)
        return;
      const org = await operatorView(exchange, state);
      if (org) replaceAnswer(answer, await resendPastCap(exchange, state, org, 'storage_cap_images'));
    },
  },
  {
    id: 'C-CAP-UPLOADING-NOT-COUNTED',
    area: 'caps',
    description:
      'The storage count selects images that are ready, processing or failed: an image still `uploading` takes no slot, so opened resumable uploads can exceed the cap',
    violates:
      '"Counts against the storage cap at creation" / "(none) | `POST /upload` JSON `{name,size}` | storage cap not reached | `uploading`"',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!opensImage(exchange) || answer.status !== 402) return;
      const org = await operatorView(exchange, state);
      if (!org) return;
      const uploading = (await operatorImages(state, org.id)).filter(
        (i) => i.upload_status === 'uploading',
      ).length;
      if (org.usage.images - uploading < org.plan.storage_cap_images)
        replaceAnswer(answer, await resendPastCap(exchange, state, org, 'storage_cap_images'));
    },
  },
  {
    id: 'C-CAP-FAILED-PREDICTION-REFUNDED',
    area: 'caps',
    description:
      "A FAILED prediction gives its analysis back (the worker decrements the month's counter on failure): after a failure one more analysis than the plan allows runs",
    violates: '"Monthly analysis cap, per plan; each prediction counts; exceeding yields 402."',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!match(exchange, 'POST', /^\/api\/v1\/predict$/) || answer.status !== 402) return;
      const org = await operatorView(exchange, state);
      if (!org) return;
      const failed = (await operatorImages(state, org.id))
        .flatMap((image) => image.predictions)
        .filter((p) => p.status === 'FAILED' && p.created_at.startsWith(org.usage.month)).length;
      if (org.usage.analyses_this_month - failed < org.plan.monthly_analysis_cap)
        replaceAnswer(answer, await resendPastCap(exchange, state, org, 'monthly_analysis_cap'));
    },
  },
  {
    id: 'C-CAP-LAST-SLOT-REFUSED',
    area: 'caps',
    description:
      'The storage check counts the image being added twice (`stored + 1 >= cap`): the last slot of the plan is refused 402, one image short of the cap',
    violates:
      '"Image storage cap, per plan, counted in images; reaching it yields 402 on upload and on image-record creation." (402 only once the cap is reached)',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      if (!opensImage(exchange) || answer.status !== 200) return;
      const org = await operatorView(exchange, state);
      if (!org || org.usage.images !== org.plan.storage_cap_images) return;
      const body = readJson(answer);
      const created = imageOf(body);
      if (!created) return;
      // The image just made took the last slot: the faulty check would have refused it.
      await state.upstream('DELETE', `/api/v1/upload/${String(created.id)}`, { key: bearer(exchange) });
      replaceAnswer(
        answer,
        jsonAnswer(402, {
          detail: `Storage cap reached: your plan allows ${org.plan.storage_cap_images} images and ${org.plan.storage_cap_images - 1} are stored. Delete images to free space or upgrade your plan.`,
        }),
      );
    },
  },
];
