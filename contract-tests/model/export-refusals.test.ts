import { describe, expect, it } from 'vitest';
import { SEGMENTED, segmentedOracle, testExchange as exchange } from './exchange-fixture.js';
import { Oracle } from './oracle.js';

const { segmentation: SEGMENTATION } = SEGMENTED;

/** An oracle that saw the main organization's image segmented. */
const segmented = () => segmentedOracle();

const asked = (oracle: Oracle, operationId: string, query: string, status: number) =>
  oracle
    .observe(
      exchange(
        operationId,
        status,
        { detail: 'no' },
        {
          key: 'sk_other',
          url: `http://target/api/v1/export/${SEGMENTATION}/x?${query}`,
          params: { segmentation_id: SEGMENTATION },
        },
      ),
    )
    .map((f) => `${f.subject}: ${f.predicted} / ${f.received}`);

describe("another organization's segmentation asked with options the document refuses", () => {
  it('may be refused for its options before it is looked up', () => {
    expect(asked(segmented(), 'exportOverlayPng', 'outline_color=FFF', 422)).toEqual([]);
    expect(asked(segmented(), 'exportMeasurementsCsv', 'columns=nope', 422)).toEqual([]);
    expect(asked(segmented(), 'exportOverlayPng', 'outline_color=FFF', 404)).toEqual([]);
  });

  it('is not found, not refused, with options the document takes', () => {
    expect(asked(segmented(), 'exportOverlayPng', 'outline_color=FFFFFF', 422)).toEqual([
      'exportOverlayPng status: 404 / 422',
    ]);
  });
});
