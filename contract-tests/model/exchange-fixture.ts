import type { Exchange } from './exchange.js';

/**
 * An exchange as the model tests make them up: a JSON answer (a string body is sent as it is) to
 * the main key's request at this moment; `over` sets the rest.
 */
export function testExchange(
  operationId: string,
  status: number,
  body: unknown,
  over: Partial<Exchange> = {},
): Exchange {
  const bytes = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body ?? ''));
  return {
    operationId,
    method: 'GET',
    url: `http://target/api/v1/${operationId}`,
    params: {},
    key: 'sk_main',
    sentAt: Date.now(),
    receivedAt: Date.now(),
    status,
    headers: { 'content-type': 'application/json' },
    body,
    bytes,
    ...over,
  };
}

/**
 * The control plane's answer to making an organization (its id and first key) from what was sent,
 * as the operator's token asked it.
 */
export const organizationMade = (id: string, key: string, sent: Record<string, unknown>): Exchange =>
  testExchange(
    'mockCreateOrganization',
    200,
    { id, api_keys: [key] },
    { key: 'admin', method: 'POST', url: 'http://target/__mock/organizations', sent },
  );
