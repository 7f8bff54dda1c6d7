import type { ApiSchemas } from '../api-schemas.js';
import type { Services } from '../../services.js';
import type { ModelRecord } from '../../domain/models/model-record.js';
import type { OperationHandler } from '../operation-context.js';

export function toModelResource(model: ModelRecord): ApiSchemas['Model'] {
  return {
    id: model.id,
    name: model.name,
    kind: model.scope,
    version: model.version,
    description: model.description,
  };
}

export function modelHandlers({ state }: Services): Record<string, OperationHandler> {
  return {
    listModels({ res, org }) {
      res.json(state.models.listFor(org).map(toModelResource));
    },
  };
}
