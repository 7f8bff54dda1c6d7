/**
 * Makes files (and folders, for the names in them) durable: each is opened and fsync'ed. Called
 * after a file is written and before the database row that points at it commits, so a crash can
 * leave a file no row points at (the start-up sweep removes it), never a row pointing at a file
 * that is not on disk.
 */
import { open } from 'node:fs/promises';
import path from 'node:path';

export async function flushFiles(paths: string[]): Promise<void> {
  for (const file of paths) await syncFile(file);
}

/** fsync of a file, or of a folder (for the names in it). */
export async function syncFile(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The folder an object was put in and its parent: both may be new, and a name lives in its parent. */
export function syncFolders(folder: string): Promise<void> {
  return flushFiles([folder, path.dirname(folder)]);
}
