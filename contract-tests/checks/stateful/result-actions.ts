import type {
  Prediction,
  PredictionAck,
  Share as ShareRecord,
} from '../../../openapi/generated/client/types.gen.js';
import { idOf, ifNoneMatch, type Conditional, type ExportAsked, type IdClass } from './arguments.js';
import { needs, via, type Action } from './image-actions.js';
import { otherKinds, pick, type Handles, type Real } from './world.js';

/**
 * What the exploration does with predictions, segmentations and shares: predict with every model
 * the organization lists (or none of them), poll, export with the document's options and
 * conditional headers, share, revoke, read a share and open its link.
 */
const byKey = (key: 0 | 1) => (key ? ' by the second key' : '');
const remember = (list: string[], id: unknown) => {
  if (typeof id === 'string' && !list.includes(id)) list.push(id);
};

/** Polls a prediction at most `polls` times, until it ends; a segmentation it made is kept. */
export async function pollUntilDone(
  real: Real,
  handles: Handles,
  id: string,
  key: 0 | 1,
  polls: number,
): Promise<void> {
  for (let i = 0; i < polls; i++) {
    const read = await via(real, key).call<Prediction>('getPrediction', { params: { prediction_id: id } });
    if (read.status !== 200) return;
    if (read.body.status === 'COMPLETED') {
      remember(handles.segmentations, read.body.segmentation_id);
      const known = handles.predicted[id];
      if (known && typeof read.body.segmentation_id === 'string')
        known.segmentation = read.body.segmentation_id;
    }
    if (read.body.status === 'COMPLETED' || read.body.status === 'FAILED') return;
    if (i + 1 < polls) await new Promise((r) => setTimeout(r, 5));
  }
}

export type ModelClass = 'listed' | 'nobody' | 'near' | 'not a UUID' | 'upper case';

/** Which of the sequence's images a prediction names: any, or one an answer showed ready. */
export type ImageChoice = 'any' | 'ready';

export function predict(
  index: number,
  kind: IdClass,
  model: { kind: ModelClass; index: number },
  polls: number,
  key: 0 | 1,
  choice: ImageChoice = 'any',
): Action {
  const images = (handles: Readonly<Handles>) =>
    choice === 'ready' && handles.ready.length ? handles.ready : handles.images;
  return {
    label: `predict ${choice === 'ready' ? 'ready ' : ''}image ${index} (${kind} id) with ${model.kind} model ${model.index}, polled ${polls} times${byKey(key)}`,
    can: (handles) => needs(kind, handles.images),
    async send(real, handles) {
      const image = idOf(
        kind,
        pick(images(handles), index),
        real.foreign.image,
        index,
        otherKinds(handles, 'images'),
      );
      const listed = pick(real.models, model.index);
      const modelId = model.kind === 'listed' ? listed : idOf(model.kind, listed, undefined, model.index);
      const ack = await via(real, key).call<PredictionAck>('createPrediction', {
        body: { image_id: image, model_id: modelId },
      });
      if (ack.status !== 200 || typeof ack.body.prediction_id !== 'string') return;
      remember(handles.predictions, ack.body.prediction_id);
      if (kind === 'own') handles.predicted[ack.body.prediction_id] ??= { image };
      await pollUntilDone(real, handles, ack.body.prediction_id, key, polls);
    },
  };
}

export function pollOnce(index: number, kind: IdClass, key: 0 | 1): Action {
  return {
    label: `poll prediction ${index} (${kind} id)${byKey(key)}`,
    can: (handles) => needs(kind, handles.predictions),
    send: (real, handles) =>
      pollUntilDone(
        real,
        handles,
        idOf(
          kind,
          pick(handles.predictions, index),
          real.foreign.prediction,
          index,
          otherKinds(handles, 'predictions'),
        ),
        key,
        1,
      ),
  };
}

export function exportOf(
  index: number,
  kind: IdClass,
  asked: ExportAsked,
  condition: Conditional,
  key: 0 | 1,
): Action {
  const query = new URLSearchParams(
    Object.entries(asked.query).flatMap(([n, v]) =>
      (Array.isArray(v) ? v : [v]).map((one): [string, string] => [n, one]),
    ),
  );
  return {
    label: `${asked.operationId}${query.size ? `?${query}` : ''} of segmentation ${index} (${kind} id), If-None-Match ${condition}${byKey(key)}`,
    can: (handles) => needs(kind, handles.segmentations),
    async send(real, handles) {
      const own = pick(handles.segmentations, index);
      const id = idOf(kind, own, real.foreign.segmentation, index, otherKinds(handles, 'segmentations'));
      const remembered = `${asked.operationId} ${own} ${query}`;
      const header = ifNoneMatch(condition, handles.etags[remembered]);
      const answer = await via(real, key).call(asked.operationId, {
        params: { segmentation_id: id },
        query: asked.query,
        ...(header === undefined ? {} : { headers: { 'if-none-match': header } }),
      });
      const etag = answer.headers.get('etag');
      if (answer.status === 200 && etag && kind === 'own') handles.etags[remembered] = etag;
    },
  };
}

export function share(index: number, kind: IdClass, key: 0 | 1): Action {
  return {
    label: `share segmentation ${index} (${kind} id)${byKey(key)}`,
    can: (handles) => needs(kind, handles.segmentations),
    async send(real, handles) {
      const id = idOf(
        kind,
        pick(handles.segmentations, index),
        real.foreign.segmentation,
        index,
        otherKinds(handles, 'segmentations'),
      );
      const answer = await via(real, key).call<ShareRecord>('createShare', { body: { segmentation_id: id } });
      if (answer.status !== 200 || typeof answer.body.id !== 'string') return;
      remember(handles.shares, answer.body.id);
      if (typeof answer.body.url === 'string') handles.links[answer.body.id] = answer.body.url;
    },
  };
}

export function onShare(op: 'getShare' | 'revokeShare', index: number, kind: IdClass, key: 0 | 1): Action {
  return {
    label: `${op} share ${index} (${kind} id)${byKey(key)}`,
    can: (handles) => needs(kind, handles.shares),
    send: (real, handles) =>
      via(real, key).call(op, {
        params: {
          share_id: idOf(
            kind,
            pick(handles.shares, index),
            real.foreign.share,
            index,
            otherKinds(handles, 'shares'),
          ),
        },
      }),
  };
}

/** Opens a share's link, or its page's preview image, as anyone holding it does: no credential. */
export function openLink(index: number, what: 'page' | 'preview image'): Action {
  return {
    label: `open the ${what} of share ${index}`,
    can: (handles) => Object.keys(handles.links).length > 0,
    send(real, handles) {
      const link = pick(Object.values(handles.links), index)!;
      return real.clients[0].raw('GET', what === 'page' ? link : `${link.replace(/\/+$/, '')}/image.png`, {
        key: null,
      });
    },
  };
}

export const listModels = (key: 0 | 1): Action => ({
  label: `list the models${byKey(key)}`,
  can: () => true,
  send: (real) => via(real, key).call('listModels'),
});
