/**
 * The embedded store's durability helpers: fsync of a file or a folder (for the names in it).
 */
import * as fsp from 'node:fs/promises';
import path from 'node:path';

/** The folder an object was put in and its parent: both may be new, and a name lives in its parent. */
export async function syncFolders(folder: string): Promise<void> {
  await syncFile(folder);
  await syncFile(path.dirname(folder));
}

/** fsync of a file, or of a folder (for the names in it). */
export async function syncFile(file: string): Promise<void> {
  const handle = await fsp.open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export function isMissing(error: NodeJS.ErrnoException): boolean {
  return error?.code === 'ENOENT';
}
