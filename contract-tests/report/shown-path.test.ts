import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { shownPath } from './shown-path.js';

describe('shownPath', () => {
  it('is relative inside the working folder, absolute outside it', () => {
    expect(shownPath(path.join(process.cwd(), 'reports'))).toBe('reports');
    expect(shownPath(process.cwd())).toBe('.');
    const outside = path.join(path.parse(process.cwd()).root, 'tmp-elsewhere', 'parity');
    expect(shownPath(outside)).toBe(outside);
    expect(shownPath(path.join(os.tmpdir(), 'x'))).not.toMatch(/^\.\./);
  });
});
