import { describe, expect, it } from 'vitest';
import { organizationMade, testExchange as exchange } from './exchange-fixture.js';
import { Oracle } from './oracle.js';

const ORG = '66666666-6666-4666-8666-666666666666';
const NOBODY = '77777777-7777-4777-8777-777777777777';

/** An oracle that saw an organization made with a plan (key sk_made), or knows only a target's key. */
function oracleOf(made: boolean): Oracle {
  const oracle = new Oracle();
  oracle.knowKeys({ main: 'sk_main' });
  if (made)
    oracle.observe(
      organizationMade(ORG, 'sk_made', { plan: { storage_cap_images: 3, monthly_analysis_cap: 3 } }),
    );
  return oracle;
}

const asked = (
  oracle: Oracle,
  key: string,
  operationId: string,
  params: Record<string, string>,
  status: number,
  url?: string,
) =>
  oracle
    .observe(
      exchange(operationId, status, status === 200 ? { id: NOBODY } : { detail: 'x' }, {
        key,
        params,
        ...(url ? { url } : {}),
      }),
    )
    .map((f) => `${f.subject}: ${f.predicted} / ${f.received}`);

describe('an id no answer handed out', () => {
  it("is nobody's in an organization made here: not found", () => {
    const oracle = oracleOf(true);
    expect(asked(oracle, 'sk_made', 'getUpload', { image_id: NOBODY }, 404)).toEqual([]);
    expect(asked(oracle, 'sk_made', 'getShare', { share_id: NOBODY }, 200)).toEqual([
      'getShare status: 404 / 200',
    ]);
    expect(asked(oracle, 'sk_made', 'getPrediction', { prediction_id: NOBODY }, 422)).toEqual([
      'getPrediction status: 404 / 422',
    ]);
  });

  it('may be refused for options the document refuses, on an export', () => {
    const url = `http://target/api/v1/export/${NOBODY}/overlay.png?max_size=8`;
    expect(
      asked(oracleOf(true), 'sk_made', 'exportOverlayPng', { segmentation_id: NOBODY }, 422, url),
    ).toEqual([]);
  });

  it("is not judged in a target's own organization: another client may have made it", () => {
    expect(asked(oracleOf(false), 'sk_main', 'getShare', { share_id: NOBODY }, 200)).toEqual([]);
  });
});
