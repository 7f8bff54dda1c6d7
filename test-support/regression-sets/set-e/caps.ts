import { randomUUID } from 'node:crypto';
import { caller, jsonAnswer, match } from '../edit-helpers.js';
import type { Exchange, ProxyState, Regression } from '../regression.js';
import { usageOf, usages } from './common.js';

async function atStorageCap(
  exchange: Exchange,
  state: ProxyState,
): Promise<{ cap: number; plan: string } | undefined> {
  const usage = await usageOf(state, caller(exchange, state)?.id);
  if (!usage || usage.usage.images < usage.plan.storage_cap_images) return undefined;
  return { cap: usage.plan.storage_cap_images, plan: usage.plan.name };
}

function storageCap402(found: { cap: number; plan: string }) {
  return jsonAnswer(402, {
    detail: `Storage cap reached: the ${found.plan} plan allows ${found.cap} images. Delete images to free space or upgrade the plan.`,
  });
}

export const CAPS: Regression[] = [
  {
    id: 'E-CAP-STORAGE-BLOCKS-DELETE',
    area: 'caps',
    description:
      'The storage-cap dependency was attached to the whole images router: once the organization is at its cap, DELETE /upload/{id} and DELETE /image/{id} answer 402 too, so it can never free a slot',
    violates:
      '"any | `DELETE /upload/{image_id}` or `DELETE /image/{image_id}` | image in caller\'s organization | removed | slot freed" / "reaching it yields 402 on upload and on image-record creation"',
    statedIn: 'interface',
    async request(exchange, state) {
      if (!match(exchange, 'DELETE', /^\/api\/v1\/(upload|image)\/[^/]+$/)) return;
      const found = await atStorageCap(exchange, state);
      if (found) return storageCap402(found);
    },
  },
  {
    id: 'E-CAP-COMPLETE-AT-CAP',
    area: 'caps',
    description:
      'Complete runs the storage-cap check as if it added an image: an upload opened in the last slot of the plan can never be completed (402), though it already holds its slot',
    violates:
      '"Counts against the storage cap at creation; returns 402 when the cap is reached, before any bytes are uploaded." (complete: "Errors: 401, 403, 404, 422")',
    statedIn: 'interface',
    async request(exchange, state) {
      if (!match(exchange, 'POST', /^\/api\/v1\/upload\/[^/]+\/complete$/)) return;
      const found = await atStorageCap(exchange, state);
      if (found) return storageCap402(found);
    },
  },
  {
    id: 'E-CAP-ANALYSIS-ALL-ORGS',
    area: 'caps',
    description:
      "The month's analysis count lost its organization filter: every organization's predictions of the month count against the caller's monthly cap",
    violates:
      '"Monthly analysis cap, per plan; each prediction counts; exceeding yields 402." / "every resource read or created is confined to that organization"',
    statedIn: 'interface',
    async request(exchange, state) {
      if (!match(exchange, 'POST', /^\/api\/v1\/predict$/)) return;
      const org = caller(exchange, state);
      if (!org) return;
      const all = await usages(state);
      const mine = all.find((u) => u.id === org.id);
      if (!mine) return;
      const used = all.reduce((sum, u) => sum + u.usage.analyses_this_month, 0);
      if (used >= mine.plan.monthly_analysis_cap)
        return jsonAnswer(402, {
          detail: `Monthly analysis cap reached: the ${mine.plan.name} plan allows ${mine.plan.monthly_analysis_cap} analyses a month and ${used} were run.`,
        });
    },
  },
  {
    id: 'E-CAP-ANALYSIS-AS-SKIPPED',
    area: 'caps',
    description:
      'The monthly cap check was folded into the duplicate check: past the cap, predict answers 200 `skipped` ("Monthly analysis cap reached") with an id that was never queued, instead of 402',
    violates:
      '"Errors: 401, 402 (monthly analysis cap), 404 (...), 422 (non-UUID id)." / "exceeding yields 402"',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'POST', /^\/api\/v1\/predict$/) || answer.status !== 402) return;
      Object.assign(
        answer,
        jsonAnswer(200, {
          prediction_id: randomUUID(),
          status: 'skipped',
          reason: 'Monthly analysis cap reached.',
        }),
      );
    },
  },
];
