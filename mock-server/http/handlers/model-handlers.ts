import type { ModelRecord } from '../../domain/models/model-record.js';
import type { Organization } from '../../domain/organizations.js';
import { toModelResource } from '../render/model.js';
import type { OperationHandler } from '../operation-context.js';

export interface ModelUseCases {
  /** The base models and the organization's own. */
  models: { listFor(org: Organization): Promise<ModelRecord[]> };
}

export function modelHandlers({ models }: ModelUseCases): Record<string, OperationHandler> {
  return {
    async listModels({ res, org }) {
      res.json((await models.listFor(org)).map(toModelResource));
    },
  };
}
