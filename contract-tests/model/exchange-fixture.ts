import type { Exchange } from './exchange.js';
import { Oracle } from './oracle.js';

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

/** The ids of the main organization's image that `segmentedOracle` saw segmented. */
export const SEGMENTED = {
  image: '11111111-1111-4111-8111-111111111111',
  prediction: '22222222-2222-4222-8222-222222222222',
  segmentation: '33333333-3333-4333-8333-333333333333',
  model: '44444444-4444-4444-8444-444444444444',
} as const;

/**
 * An oracle that knows the main and other keys (`sk_main`, `sk_other`) and saw the main
 * organization's image (SEGMENTED) uploaded ready and predicted to completion with `cellCount` cells.
 */
export function segmentedOracle(cellCount = 3): Oracle {
  const { image: id, prediction, segmentation, model } = SEGMENTED;
  const oracle = new Oracle();
  oracle.knowKeys({ main: 'sk_main', other: 'sk_other' });
  const image = { id, name: 'cells.tif', size: 10, upload_status: 'ready', shape: [4, 4] };
  const steps = [
    testExchange('listModels', 200, [{ id: model, name: 'nuclei', kind: 'base' }]),
    testExchange(
      'uploadImage',
      200,
      { image, success: true, upload: null },
      { sent: { file: { name: 'cells.tif', size: 10 } } },
    ),
    testExchange(
      'createPrediction',
      200,
      { prediction_id: prediction, status: 'submitted', reason: '' },
      { sent: { image_id: id, model_id: model } },
    ),
    testExchange(
      'getPrediction',
      200,
      {
        prediction_id: prediction,
        status: 'COMPLETED',
        image_id: id,
        model_id: model,
        segmentation_id: segmentation,
        cell_count: cellCount,
      },
      { params: { prediction_id: prediction } },
    ),
  ];
  for (const step of steps) {
    const findings = oracle.observe(step);
    if (findings.length) throw new Error(`segmentedOracle: ${step.operationId}: ${JSON.stringify(findings)}`);
  }
  return oracle;
}
