import type { Services } from '../../services.js';
import { toModelResource } from '../render/model.js';
import type { OperationHandler } from '../operation-context.js';

export function modelHandlers({ state }: Services): Record<string, OperationHandler> {
  return {
    listModels({ res, org }) {
      res.json(state.models.listFor(org).map(toModelResource));
    },
  };
}
