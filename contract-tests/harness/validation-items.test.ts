import { describe, expect, it } from 'vitest';
import { sharedContract } from './openapi-contract.js';
import { pathIdDetailClause } from './validation-items.js';

describe("a non-UUID path id's 422", () => {
  it('is judged by the string detail (VAL-03) on predict status and shares only, by the array (VAL-02) on uploads, images and exports', () => {
    const byClause = { 'VAL-02': [] as string[], 'VAL-03': [] as string[] };
    for (const op of sharedContract().operations.values())
      if (op.document === 'public' && op.secured && op.pathParams.length > 0)
        byClause[pathIdDetailClause(op.validationStyle)].push(op.operationId);
    expect(byClause['VAL-03'].sort()).toEqual(['getPrediction', 'getShare', 'revokeShare']);
    expect(byClause['VAL-02']).toEqual(
      expect.arrayContaining(['getImage', 'completeUpload', 'exportMeasurementsCsv', 'exportRoisZip']),
    );
  });
});
