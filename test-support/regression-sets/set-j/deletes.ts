import type { Exchange, ProxyState, Regression } from '../regression.js';
import { bearer, isUuid, jsonAnswer, match, memoMap, writeJson } from '../edit-helpers.js';
import {
  canonicalId,
  errorAnswer,
  inFlight,
  okArray,
  okJson,
  orgModels,
  orgOf,
  replaceAnswer,
  requestJson,
  ROUTES,
  storedImages,
  until,
} from './kit.js';

/** The image a delete names (DELETE /upload/{id} or DELETE /image/{id}), canonical, or ''. */
function deleted(exchange: Exchange): string {
  return canonicalId(match(exchange, 'DELETE', ROUTES.image)?.[1]);
}

/** Custom models the organization lost with an image it deleted. */
function lostModels(state: ProxyState, orgId: string | undefined) {
  return memoMap<string, true>(state, `lost-models:${orgId}`);
}

/** Set J, deletes. */
export const DELETES: Regression[] = [
  {
    id: 'J-DEL-CONCURRENT-BOTH-200',
    area: 'deletes',
    description:
      'The delete reads the image, then removes it and its files in a second step without checking the rows it removed: two deletes of the same image sent at once both find it, and both answer 200 `{success: true}` where the second should answer 404',
    violates:
      '"404 | resource missing or outside the caller\'s organization" (the second delete finds the image gone)',
    statedIn: 'interface',
    request(exchange, state) {
      const image = deleted(exchange);
      if (!image) return;
      inFlight(state, 'delete').enter(exchange, image);
      memoMap<Exchange, number>(state, 'delete-started').set(exchange, Date.now());
    },
    async response(exchange, answer, state) {
      const image = deleted(exchange);
      const started = memoMap<Exchange, number>(state, 'delete-started');
      const since = started.get(exchange) ?? Date.now();
      started.delete(exchange);
      const flights = inFlight(state, 'delete');
      const concurrent = image ? flights.leave(exchange) : undefined;
      const removedAt = memoMap<string, number>(state, 'removed-at');
      if (image && answer.status === 200) removedAt.set(image, Date.now());
      if (!concurrent || answer.status !== 404) return;
      await until(() => flights.count(image) === 0);
      // Only a delete of this same race found the image: one that ran before it would have left a 404.
      if ((removedAt.get(image) ?? 0) >= since) replaceAnswer(answer, jsonAnswer(200, { success: true }));
    },
  },
  {
    id: 'J-DEL-REMOVES-CUSTOM-MODEL',
    area: 'deletes',
    description:
      'The cleanup of an image\'s "training artifacts" deletes every model artifact joined to the image through its predictions, meant for the training runs that used it: deleting an image that a custom model segmented removes that custom model, gone from GET /models and refused 404 "Model not found" by predict',
    violates:
      '"Models available to an organization: the shared public base models plus custom models trained in the dashboard." (a delete removes the image and its derived storage only)',
    statedIn: 'interface',
    request(exchange, state) {
      if (!match(exchange, 'POST', ROUTES.predict)) return;
      const model = canonicalId(requestJson(exchange).model_id);
      if (lostModels(state, orgOf(exchange, state)?.id).has(model))
        return errorAnswer(404, 'Model not found');
    },
    async response(exchange, answer, state) {
      const org = orgOf(exchange, state);
      const usedOn = memoMap<string, Set<string>>(state, 'models-used-on');
      if (match(exchange, 'POST', ROUTES.predict) && okJson(answer)) {
        const body = requestJson(exchange);
        const image = canonicalId(body.image_id);
        usedOn.set(image, (usedOn.get(image) ?? new Set()).add(canonicalId(body.model_id)));
      }
      const models = match(exchange, 'GET', ROUTES.models) ? okArray(answer) : null;
      const lost = lostModels(state, org?.id);
      if (models && lost.size)
        writeJson(
          answer,
          models.filter((model) => !lost.has(canonicalId(model.id))),
        );
      const image = deleted(exchange);
      if (!image || okJson(answer)?.success !== true || !usedOn.has(image)) return;
      for (const model of org ? await orgModels(state, org.id) : [])
        if (model.kind === 'custom' && usedOn.get(image)?.has(canonicalId(model.id)))
          lost.set(canonicalId(model.id), true);
    },
  },
  {
    id: 'J-DEL-UPLOADING-ONLY-ABORTED',
    area: 'deletes',
    description:
      'Deleting an image still `uploading` runs the abort path and returns from it: the answer is 200 `{success: true}`, but the image is not removed; it stays `failed`, readable, and taking its slot in the storage cap',
    violates:
      '"`DELETE /api/v1/upload/{image_id}`: Permanently deletes the image and derived storage ...; aborts any in-flight resumable upload first."',
    statedIn: 'interface',
    async request(exchange, state) {
      const image = deleted(exchange);
      const org = orgOf(exchange, state);
      if (!isUuid(image) || !org) return;
      const stored = (await storedImages(state, org.id)).find((one) => one.id === image);
      if (stored?.upload_status !== 'uploading') return;
      const aborted = await state.upstream('POST', `/api/v1/upload/${image}/abort`, {
        key: bearer(exchange),
      });
      if (aborted.status === 200) return jsonAnswer(200, { success: true });
    },
  },
];
