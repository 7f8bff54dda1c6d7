import { describe, expect, it } from 'vitest';
import { csvRows } from './tables.js';

describe('CSV rows as a reader of the file gets them', () => {
  it('takes a quoted empty cell as a row, and a blank line as none', () => {
    expect(csvRows('tags\r\n""\r\n""\r\n')).toEqual([['tags'], [''], ['']]);
    expect(csvRows('tags\r\n\r\n\r\n').filter((r) => r.length > 0)).toEqual([['tags']]);
    expect(csvRows('tags\r\n""').filter((r) => r.length > 0)).toEqual([['tags'], ['']]);
  });

  it('keeps empty cells of a row of several, and line breaks inside quotes', () => {
    expect(csvRows('a,b\r\n,\r\n"x\r\ny",z\r\n')).toEqual([
      ['a', 'b'],
      ['', ''],
      ['x\r\ny', 'z'],
    ]);
  });
});
