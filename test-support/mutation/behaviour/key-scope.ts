import type { Answer } from '../../sabotage-catalogue.js';
import { behaviourMutant } from './behaviour-mutant.js';
import { createdImage, editJson, freshId, IMAGE_READ, keyOf, route, setJson } from './proxy-effects.js';

/**
 * What a key reaches: every key of an organization reaches the same images and models. A build
 * that scopes an image to the key that made it (a `created_by` filter) hides it from the
 * organization's other keys; a list that offers a model predict no longer takes (a retired one
 * still in the catalogue) sends a client to a 404.
 */

const KEY_SCOPED = 'authentication.289aee';
const CONFINED = 'what-the-service-does.6c81f6';
const MODELS = 'get-models.fff67d';
const PREDICT = 'post-predict.f077f4';

export const keyScopeMutants = () => [
  behaviourMutant({
    rule: 'key-scope',
    edit: 'image-of-its-key-only',
    summary:
      "An image is read and deleted only with the key that made it: the organization's other keys get 404.",
    sentences: [KEY_SCOPED, CONFINED],
    triggers: [
      ['getImage', 200],
      ['getUpload', 200],
      ['deleteImage', 200],
    ],
    make: () => {
      const maker = new Map<string, string>();
      return {
        response: (exchange, answer: Answer) => {
          const made = createdImage(exchange, answer);
          if (made) return void maker.set(made.id, keyOf(exchange));
          const id = IMAGE_READ.exec(route(exchange))?.[1]?.toLowerCase();
          if (id && answer.status < 400 && maker.has(id) && maker.get(id) !== keyOf(exchange))
            setJson(answer, 404, { detail: 'Image not found' });
        },
      };
    },
  }),
  behaviourMutant({
    rule: 'key-scope',
    edit: 'retired-model-listed',
    summary: 'The list still offers a retired base model, which predict answers 404.',
    sentences: [MODELS, PREDICT],
    triggers: [['listModels', 200]],
    make: () => {
      const retired = freshId();
      return {
        response: (exchange, answer) => {
          if (route(exchange) !== '/api/v1/models' || answer.status !== 200) return;
          editJson(answer, (body) => {
            const models = body as unknown as Array<Record<string, unknown>>;
            const base = models.find((m) => m.kind === 'base');
            if (base) models.push({ ...base, id: retired, name: `${String(base.name)}-retired` });
          });
        },
      };
    },
  }),
];
