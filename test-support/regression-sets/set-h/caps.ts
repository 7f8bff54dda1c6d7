import type { Exchange, Regression } from '../regression.js';
import { bearer, caller, match, memoMap, readJson, writeJson } from '../edit-helpers.js';
import { idOn, imageOf, pastCap, planOf } from './kit.js';

/** Whether the request creates an image (single-request or resumable upload, image-record creation). */
function createsImage(exchange: Exchange): boolean {
  return Boolean(
    match(exchange, 'POST', /^\/api\/v1\/upload$/) || match(exchange, 'POST', /^\/api\/v1\/image$/),
  );
}

const IMAGE_DELETE = /^\/api\/v1\/(?:upload|image)\/([^/]+)$/;

export const CAPS: Regression[] = [
  {
    id: 'H-CAP-DELETE-UPLOADING-FREES-TWO',
    area: 'caps',
    description:
      "DELETE /upload/{id} of an image still `uploading` aborts it first, and both the abort path and the delete path decrement the organization's image counter: each such delete frees two slots, so the organization then stores one image more than its plan",
    violates:
      '"Image storage cap, per plan, counted in images; reaching it yields 402 on upload and on image-record creation."',
    statedIn: 'interface',
    async request(exchange, state) {
      const id = idOn(exchange, 'DELETE', /^\/api\/v1\/upload\/([^/]+)$/);
      const org = caller(exchange, state);
      if (!id || !org) return;
      const read = await state.upstream('GET', `/api/v1/upload/${id}`, { key: org.key });
      if (read.status === 200 && readJson(read).upload_status === 'uploading')
        memoMap<string, string>(state, 'deleting-uploading').set(id, org.id);
    },
    async response(exchange, answer, state) {
      const extra = memoMap<string, number>(state, 'extra-slots');
      const id = idOn(exchange, 'DELETE', /^\/api\/v1\/upload\/([^/]+)$/);
      const pending = memoMap<string, string>(state, 'deleting-uploading');
      if (id && pending.has(id)) {
        const orgId = pending.get(id)!;
        pending.delete(id);
        if (answer.status === 200) extra.set(orgId, (extra.get(orgId) ?? 0) + 1);
        return;
      }
      const org = caller(exchange, state);
      if (!createsImage(exchange) || answer.status !== 402 || !org || !extra.get(org.id)) return;
      if (await pastCap(exchange, answer, state, 'storage_cap_images'))
        extra.set(org.id, extra.get(org.id)! - 1);
    },
  },
  {
    id: 'H-CAP-STORAGE-PER-KEY',
    area: 'caps',
    description:
      "The storage usage row is keyed by the API key that created the image instead of its organization: a second key of the organization starts at zero, so an organization with two keys stores up to twice its plan's images",
    violates:
      '"Image storage cap, per plan, counted in images" and "every resource read or created is confined to that organization" (the cap is the organization\'s, whichever key uploads)',
    statedIn: 'interface',
    async response(exchange, answer, state) {
      const key = bearer(exchange);
      const org = caller(exchange, state);
      if (!key || !org) return;
      const byKey = memoMap<string, number>(state, 'images-by-key');
      const owners = memoMap<string, string>(state, 'image-key');
      const deleted = idOn(exchange, 'DELETE', IMAGE_DELETE);
      if (deleted && answer.status === 200) {
        const owner = owners.get(deleted);
        if (owner) byKey.set(owner, (byKey.get(owner) ?? 1) - 1);
        owners.delete(deleted);
        return;
      }
      if (!createsImage(exchange)) return;
      if (answer.status === 402) {
        const plan = await planOf(state, org.id);
        if (!plan || (byKey.get(key) ?? 0) >= plan.storage_cap_images) return;
        await pastCap(exchange, answer, state, 'storage_cap_images');
      }
      const image = imageOf(exchange, answer);
      if (image && typeof image.id === 'string') {
        byKey.set(key, (byKey.get(key) ?? 0) + 1);
        owners.set(image.id.toLowerCase(), key);
      }
    },
  },
  {
    id: 'H-CAP-ANALYSIS-403',
    area: 'caps',
    description:
      'The monthly analysis cap is raised as the quota library\'s QuotaExceeded, which the error mapper turns into 403 "Monthly analysis quota exceeded": clients that treat 403 as a permission error (a wrong key) never tell their user to upgrade',
    violates: '"402 (monthly analysis cap)" for `POST /api/v1/predict`',
    statedIn: 'interface',
    response(exchange, answer) {
      if (!match(exchange, 'POST', /^\/api\/v1\/predict$/) || answer.status !== 402) return;
      answer.status = 403;
      writeJson(answer, { detail: 'Monthly analysis quota exceeded' });
    },
  },
];
