import type { OperationHandler } from '../operation-context.js';

/** Never reached: the dispatcher answers 403 to every operation tagged `internal` once the key is valid. */
const refuse: OperationHandler = ({ res }) =>
  void res.status(403).json({ detail: 'This endpoint is not part of the public API.' });

export const internalHandlers: Record<string, OperationHandler> = {
  createApiKey: refuse,
  listOrganizations: refuse,
  trainModel: refuse,
};
