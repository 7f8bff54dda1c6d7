import { describe, expect, it } from 'vitest';
import { attachmentNames, observeAttachmentName } from './attachment-names.js';
import type { Finding } from './exchange.js';
import { testExchange } from './exchange-fixture.js';

describe('the file names a Content-Disposition offers', () => {
  it('reads both forms of an ASCII name, so either can be held against the image name', () => {
    expect(attachmentNames(`attachment; filename="cells_rois.zip"; filename*=UTF-8''cells_rois.zip`)).toEqual(
      { filename: 'cells_rois.zip', 'filename*': 'cells_rois.zip' },
    );
    expect(attachmentNames('attachment; filename="a \\"b\\".csv"')).toEqual({ filename: 'a "b".csv' });
  });

  it('leaves out the quoted fallback of a name it had to replace characters of', () => {
    expect(
      attachmentNames(`attachment; filename="_l_ments.csv"; filename*=UTF-8''%C3%A9l%C3%A9ments.csv`),
    ).toEqual({ 'filename*': 'éléments.csv' });
  });
});

describe("an export's offered file name, held against the image's name", () => {
  const judge = (imageName: string, disposition: string) => {
    const findings: Finding[] = [];
    const x = testExchange('exportMeasurementsCsv', 200, 'roi_index\n', {
      url: 'http://target/api/v1/export/33333333-3333-4333-8333-333333333333/measurements.csv',
      headers: { 'content-type': 'text/csv', 'content-disposition': disposition },
    });
    observeAttachmentName(x, imageName, findings);
    return findings.map((f) => `${f.clause}: ${f.subject}: ${f.predicted} / ${f.received}`);
  };

  it('takes the name with or without its extension, in either form, and raw UTF-8 in the quoted one', () => {
    expect(judge('plate1.tif', 'attachment; filename="plate1_measurements.csv"')).toEqual([]);
    expect(judge('plate1.tif', 'attachment; filename="plate1.tif_measurements.csv"')).toEqual([]);
    const encoded = encodeURIComponent('Zellkerne, µ-ü_measurements.csv');
    expect(
      judge(
        'Zellkerne, µ-ü.tif',
        `attachment; filename="Zellkerne, __-__measurements.csv"; filename*=UTF-8''${encoded}`,
      ),
    ).toEqual([]);
    const raw = Buffer.from('Zellkerne, µ-ü_measurements.csv').toString('latin1');
    expect(judge('Zellkerne, µ-ü.tif', `attachment; filename="${raw}"`)).toEqual([]);
  });

  it('flags a name outside ASCII offered only with its letters replaced, or another name, under EXP-08 alone (the document rule), not the stated EXP-07', () => {
    expect(judge('Zellkerne, µ-ü.tif', 'attachment; filename="Zellkerne, __-__measurements.csv"')).toEqual([
      'EXP-08: exportMeasurementsCsv: Content-Disposition filename: "Zellkerne, µ-ü_measurements.csv" / "Zellkerne, __-__measurements.csv"',
    ]);
    expect(judge('plate1.tif', `attachment; filename*=UTF-8''export_measurements.csv`)).toHaveLength(1);
  });

  it('leaves alone a name a target may make safe (a path separator, a line break)', () => {
    expect(judge('../up/a.tif', 'attachment; filename="___up_a_measurements.csv"')).toEqual([]);
    expect(judge('a\nb.tif', 'attachment; filename="a_b_measurements.csv"')).toEqual([]);
  });
});
