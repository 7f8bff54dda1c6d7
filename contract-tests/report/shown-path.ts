import path from 'node:path';

/**
 * A file or folder as a person reads it in the run's output: relative to the working folder when
 * it is inside it (`reports`), else absolute (`/tmp/parity`, never `../../tmp/parity`).
 */
export function shownPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  if (relative === '') return '.';
  return relative.startsWith('..') || path.isAbsolute(relative) ? path.resolve(file) : relative;
}
