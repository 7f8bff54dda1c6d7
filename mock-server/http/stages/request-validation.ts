import type { ErrorObject } from 'ajv';
import { sendDetail } from '../error-responses.js';
import type { ApiResponse } from '../exchange.js';
import type { ValidationStyle } from '../document-operation.js';
import type { ValidationItem } from '../render/validation-item.js';
import type { RequestValidator } from '../request-validator.js';
import { toValidationItems, toValidationSentence } from '../validation-errors.js';
import type { OperationCall, OperationStage } from './operation-call.js';

/**
 * The path and query parameters and the JSON body checked against the operation's schemas: 422 in
 * the operation's style (FastAPI's item list, or a sentence where the document says so).
 */
export function requestValidation(validator: RequestValidator): OperationStage {
  return async function validateRequest(call) {
    const { params: path, query, body } = call;
    const request = { path, query, body, checkBody: !call.streaming };
    const checked = await validator.validate(call.operationId, request);
    const errors = checked.length ? relevantErrors(checked, call) : checked;
    if (!errors.length) return false;
    sendValidation(call.res, call.operation.validationStyle, toValidationItems(errors, request));
    return true;
  };
}

export function sendValidation(res: ApiResponse, style: ValidationStyle, items: ValidationItem[]): void {
  sendDetail(res, 422, style === 'string' ? toValidationSentence(items) : items);
}

/**
 * Parameters marked `x-validated-by-handler` are checked by their handler. A streamed body never
 * reaches the validator (`checkBody`), and unknown query parameters pass (request-validator.ts).
 */
function relevantErrors(errors: ErrorObject[], { facts }: OperationCall): ErrorObject[] {
  return errors.filter(
    ({ instancePath: at }) => !facts.byHandler.some((prefix) => at === prefix || at.startsWith(`${prefix}/`)),
  );
}
