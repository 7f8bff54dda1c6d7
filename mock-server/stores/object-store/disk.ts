/**
 * The embedded store's disk helpers: fsync of a new object's folders (files: flush-files.ts), a missing file.
 */
import path from 'node:path';
import { syncFile } from '../files/flush-files.js';

/** The folder an object was put in and its parent: both may be new, and a name lives in its parent. */
export async function syncFolders(folder: string): Promise<void> {
  await syncFile(folder);
  await syncFile(path.dirname(folder));
}

export function isMissing(error: NodeJS.ErrnoException): boolean {
  return error?.code === 'ENOENT';
}
