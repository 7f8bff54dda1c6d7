import { describe, expect, it } from 'vitest';
import { SEGMENTED, segmentedOracle, testExchange as exchange } from './exchange-fixture.js';

const URL = `http://target/api/v1/export/${SEGMENTED.segmentation}/measurements.csv`;
const ETAG = '"abc123"';

describe("the oracle on another organization's conditional request", () => {
  it("predicts 404 for an export asked with the owner's ETag, and the owner's 304 left alone", () => {
    const oracle = segmentedOracle(0);
    const conditional = (key: string) =>
      oracle
        .observe(
          exchange('exportMeasurementsCsv', 304, '', {
            url: URL,
            key,
            params: { segmentation_id: SEGMENTED.segmentation },
            headers: { etag: ETAG },
            sentHeaders: { 'if-none-match': ETAG },
          }),
        )
        .map((f) => `${f.subject}: ${f.predicted} / ${f.received}`);
    expect(conditional('sk_other')).toEqual(['exportMeasurementsCsv status: 404 / 304']);
    expect(conditional('sk_main')).toEqual([]);
  });
});
