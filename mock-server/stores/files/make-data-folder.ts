import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { DataFolderError } from '../sqlite/database/open-database.js';

/**
 * Makes the data folder and its subfolders, one level at a time. Node's own
 * `mkdir(..., { recursive: true })` retries without end where a parent answers ENOENT to mkdir
 * although it exists (inside /proc, say), spinning a core with no word; and a parent that is a
 * file surfaces as a raw ENOTDIR from deep inside start-up. Here each level is made once, and any
 * refusal ends start-up with one line that names the folder the option gave and why.
 */
export async function makeDataFolders(root: string, folders: readonly string[]): Promise<void> {
  for (const folder of folders) await makeFolder(path.resolve(folder), root);
}

async function makeFolder(folder: string, root: string): Promise<void> {
  const parent = path.dirname(folder);
  if (parent !== folder && !(await isFolder(parent, root))) await makeFolder(parent, root);
  try {
    await mkdir(folder);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && (await isFolder(folder, root))) return;
    throw new DataFolderError(`cannot use ${root} as the data folder: ${why(code, folder)}`);
  }
}

async function isFolder(folder: string, root: string): Promise<boolean> {
  try {
    if ((await stat(folder)).isDirectory()) return true;
  } catch {
    return false;
  }
  throw new DataFolderError(`cannot use ${root} as the data folder: ${folder} is a file, not a folder`);
}

function why(code: string | undefined, folder: string): string {
  switch (code) {
    case 'EEXIST':
    case 'ENOTDIR':
      return `${folder} is a file, not a folder`;
    case 'EACCES':
    case 'EPERM':
      return `no permission to create ${folder}`;
    case 'EROFS':
      return `${folder} is on a read-only file system`;
    case 'ENOSPC':
      return `no space left to create ${folder}`;
    default:
      return `the file system refuses to create ${folder} (${code ?? 'unknown error'})`;
  }
}
