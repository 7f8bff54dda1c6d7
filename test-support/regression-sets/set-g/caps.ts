import { bearer, isJson, match, memoMap, readJson } from '../edit-helpers.js';
import type { Exchange, Regression } from '../regression.js';
import { addHeldSlot, callerOrg, createsImage, organizationView, refuseIfHeldSlots, UUID } from './state.js';

const DELETE_IMAGE = new RegExp(`^/api/v1/(?:upload|image)/${UUID}$`);

export const CAPS: Regression[] = [
  {
    id: 'G-CAP-REFUSED-UPLOAD-KEEPS-SLOT',
    area: 'caps',
    description:
      'The storage counter is incremented before the cap check and the 402 path never gives it back: every refused upload at the cap takes a slot for good, so after deleting an image the next upload is still refused',
    violates:
      '"any | `DELETE /upload/{image_id}` or `DELETE /image/{image_id}` | image in caller\'s organization | removed | slot freed"',
    statedIn: 'interface',
    request: refuseIfHeldSlots,
    response(exchange, answer, state) {
      if (createsImage(exchange) && answer.status === 402) addHeldSlot(state, callerOrg(exchange, state));
    },
  },
  {
    id: 'G-CAP-INVALID-CREATE-TAKES-SLOT',
    area: 'caps',
    description:
      "Image-record creation reserves its storage slot before validating the body, and a 422 (a bad image type, a missing size) never releases it: each refused creation lowers the organization's cap by one",
    violates:
      '"Image storage cap, per plan, counted in images" (a creation that was refused created no image and must take no slot)',
    statedIn: 'interface',
    request: refuseIfHeldSlots,
    response(exchange, answer, state) {
      if (match(exchange, 'POST', /^\/api\/v1\/image$/) && answer.status === 422)
        addHeldSlot(state, callerOrg(exchange, state));
    },
  },
  {
    id: 'G-CAP-DELETE-FAILED-NOT-FREED',
    area: 'caps',
    description:
      'The storage counter is decremented only when a `ready` image is deleted: deleting a failed, aborted or still-uploading image removes it but its slot stays taken',
    violates:
      '"any | `DELETE /upload/{image_id}` or `DELETE /image/{image_id}` | image in caller\'s organization | removed | slot freed" and "Failed or aborted images still count until deleted."',
    statedIn: 'interface',
    async request(exchange, state) {
      const del = exchange.method === 'DELETE' ? exchange.path.split('?')[0].match(DELETE_IMAGE) : null;
      if (del) {
        const read = await state.upstream('GET', `/api/v1/upload/${del[1]}`, { key: bearer(exchange) });
        if (read.status === 200 && readJson<{ upload_status: string }>(read).upload_status !== 'ready')
          memoMap<Exchange, boolean>(state, 'g-cap-unready-delete').set(exchange, true);
        return;
      }
      return refuseIfHeldSlots(exchange, state);
    },
    response(exchange, answer, state) {
      const marked = memoMap<Exchange, boolean>(state, 'g-cap-unready-delete');
      if (!marked.get(exchange)) return;
      marked.delete(exchange);
      if (answer.status === 200) addHeldSlot(state, callerOrg(exchange, state));
    },
  },
  {
    id: 'G-CAP-CONCURRENT-PREDICTS-PAST-CAP',
    area: 'caps',
    description:
      'The monthly analysis check reads the counter, compares and writes it back without a lock: predicts sent concurrently at the edge of the cap are all accepted, and the month ends past the plan',
    violates: '"Monthly analysis cap, per plan; each prediction counts; exceeding yields 402."',
    statedIn: 'interface',
    request(exchange, state) {
      if (!match(exchange, 'POST', /^\/api\/v1\/predict$/)) return;
      const orgId = callerOrg(exchange, state);
      if (!orgId) return;
      const inFlight = memoMap<string, number>(state, 'g-cap-predicts-in-flight');
      const now = inFlight.get(orgId) ?? 0;
      if (now > 0) memoMap<Exchange, boolean>(state, 'g-cap-raced').set(exchange, true);
      inFlight.set(orgId, now + 1);
    },
    async response(exchange, answer, state) {
      if (!match(exchange, 'POST', /^\/api\/v1\/predict$/)) return;
      const orgId = callerOrg(exchange, state);
      if (!orgId) return;
      const inFlight = memoMap<string, number>(state, 'g-cap-predicts-in-flight');
      const raced = memoMap<Exchange, boolean>(state, 'g-cap-raced');
      try {
        if (!raced.get(exchange) || answer.status !== 402) return;
        const view = await organizationView(state, orgId);
        if (!view) return;
        const plan = view.plan;
        const path = `/__mock/organizations/${orgId}/plan`;
        await state.upstream('PUT', path, {
          body: { ...plan, monthly_analysis_cap: plan.monthly_analysis_cap + 1 },
        });
        try {
          const again = await state.resend(exchange);
          if (again.status === 200 && isJson(again)) Object.assign(answer, again);
        } finally {
          await state.upstream('PUT', path, { body: plan });
        }
      } finally {
        raced.delete(exchange);
        inFlight.set(orgId, Math.max(0, (inFlight.get(orgId) ?? 1) - 1));
      }
    },
  },
];
