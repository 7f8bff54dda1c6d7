import fc from 'fast-check';
import type { PredictionAck } from '../../../openapi/generated/client/types.gen.js';
import { via, type Action } from './image-actions.js';
import { pollOnce, share } from './result-actions.js';
import { pick, type Handles, type Real } from './world.js';

/**
 * A poll of a prediction sent at once with another request on the same prediction: a second poll,
 * a delete of its image, a second prediction of its image, a share of its segmentation. The
 * oracle's overlap judge (model/overlap.ts) takes both answers as the target may have taken them in
 * either order: a poll held for a number of polls counts both, one after the delete is a 404, a
 * second prediction while the first is in flight is `skipped`, a share is made once.
 */
const byKey = (key: 0 | 1) => (key ? ' by the second key' : '');

/** The prediction a pair acts on, and what the sequence knows of it. */
const predictionOf = (handles: Readonly<Handles>, index: number) => {
  const id = pick(handles.predictions, index);
  return id ? { id, ...handles.predicted[id] } : undefined;
};

/** A request on what prediction `index` was made of or made: its image, or its segmentation. */
function onPredictionOf(
  label: string,
  index: number,
  needs: 'image' | 'segmentation',
  send: (real: Real, handles: Handles, known: { image: string; segmentation?: string }) => Promise<unknown>,
): Action {
  return {
    label: `${label} of prediction ${index}`,
    can: (handles) => {
      const known = predictionOf(handles, index);
      return !!known?.image && (needs === 'image' || !!known.segmentation);
    },
    async send(real, handles) {
      const known = predictionOf(handles, index);
      if (known?.image) await send(real, handles, { image: known.image, segmentation: known.segmentation });
    },
  };
}

const deleteImageOf = (index: number, op: 'deleteImage' | 'deleteUpload', key: 0 | 1): Action =>
  onPredictionOf(`${op} the image${byKey(key)}`, index, 'image', (real, _, { image }) =>
    via(real, key).call(op, { params: { image_id: image } }),
  );

const predictAgain = (index: number, model: number, key: 0 | 1): Action =>
  onPredictionOf(
    `predict again with model ${model}${byKey(key)}`,
    index,
    'image',
    async (real, handles, { image }) => {
      const ack = await via(real, key).call<PredictionAck>('createPrediction', {
        body: { image_id: image, model_id: pick(real.models, model) },
      });
      const id = ack.status === 200 ? ack.body.prediction_id : undefined;
      if (typeof id !== 'string') return;
      if (!handles.predictions.includes(id)) handles.predictions.push(id);
      handles.predicted[id] ??= { image };
    },
  );

const shareResultOf = (index: number, key: 0 | 1): Action =>
  onPredictionOf(`share the segmentation${byKey(key)}`, index, 'segmentation', (real, handles, known) => {
    // share() names a segmentation by its place in the list: the prediction's own
    const own = handles.segmentations.indexOf(known.segmentation!);
    return own < 0 ? Promise.resolve() : share(own, 'own', key).send(real, handles);
  });

export type PollPartner =
  'a second poll' | 'a delete of its image' | 'a second prediction' | 'a share of its result';

export const pollPair = (): fc.Arbitrary<[Action, Action]> =>
  fc
    .tuple(
      fc.nat({ max: 7 }),
      fc.constantFrom<PollPartner>(
        'a second poll',
        'a delete of its image',
        'a second prediction',
        'a share of its result',
      ),
      fc.constantFrom<0 | 1>(0, 0, 1),
      fc.constantFrom<0 | 1>(0, 0, 1),
      fc.nat({ max: 7 }),
      fc.boolean(),
    )
    .map(([index, partner, key, other, model, upload]): [Action, Action] => {
      const poll = pollOnce(index, 'own', key);
      if (partner === 'a second poll') return [poll, pollOnce(index, 'own', other)];
      if (partner === 'a delete of its image')
        return [poll, deleteImageOf(index, upload ? 'deleteUpload' : 'deleteImage', other)];
      if (partner === 'a second prediction') return [poll, predictAgain(index, model, other)];
      return [poll, shareResultOf(index, other)];
    });
