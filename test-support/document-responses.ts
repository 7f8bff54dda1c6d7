import { OpenApiContract } from '../contract-tests/harness/openapi-contract.js';

/**
 * The one response validator of the project (the contract suite's, built from openapi/ alone),
 * shared with the mock's own tests so both judge responses by the same reading of the document.
 */
let contract: OpenApiContract | undefined;

export function documentContract(): OpenApiContract {
  contract ??= new OpenApiContract();
  return contract;
}

/** Every way a response breaks the document, as one line each; empty when it conforms. */
export function responseViolations(
  operationId: string,
  status: number,
  contentType: string | null,
  text: string,
): string[] {
  let body: unknown = text;
  if ((contentType ?? '').includes('json')) {
    try {
      body = JSON.parse(text);
    } catch {
      return [`${operationId} ${status}: the body is not JSON: ${text.slice(0, 120)}`];
    }
  }
  return documentContract()
    .validateResponse(operationId, status, contentType, body)
    .map((v) => v.message);
}
