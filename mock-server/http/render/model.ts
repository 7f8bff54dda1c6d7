import type { ModelRecord } from '../../domain/models/model-record.js';
import type { ApiSchemas } from '../api-schemas.js';

/** The Model resource of `GET /models` (x-assumed: the interface does not show it). */
export function toModelResource(model: ModelRecord): ApiSchemas['Model'] {
  return {
    id: model.id,
    name: model.name,
    kind: model.scope,
    version: model.version,
    description: model.description,
  };
}
