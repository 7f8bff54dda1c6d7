import { describe, expect, it } from 'vitest';
import { attachmentNames } from './attachment-names.js';

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
