/**
 * Removes a folder another process may still be writing into: a conversion's child writing
 * `derived/<id>/` while the image is deleted, an instance claiming a part in an upload folder that
 * another instance completes. `rm -r` alone lists the folder, unlinks what it found and removes
 * the folder; a file created in between makes that last step fail with ENOTEMPTY (a DELETE once
 * answered 500 for it). So the folder is first renamed aside, atomically: from then on a writer's next file
 * fails with ENOENT (none of them makes the folder again) and it stops, and what is left to remove
 * grows by at most the file whose creation was already under way. A folder that stays busy (on
 * NFS, a file another process holds open stays as `.nfsXXXX` until closed) is left, under its
 * aside name, to the start-up sweep: the row that pointed at it is gone already, and failing the
 * request would not remove it any sooner.
 */
import { randomBytes } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';

const BUSY = new Set(['ENOTEMPTY', 'EBUSY']);
const ATTEMPTS = 8;

/** The name a folder is renamed to while it is removed: no id of the layout starts with a dot. */
function asideName(folder: string): string {
  return path.join(
    path.dirname(folder),
    `.${path.basename(folder)}.removing-${randomBytes(6).toString('hex')}`,
  );
}

/** Answers whether the folder is gone; throws only on failures other than a busy folder. */
export async function removeFolder(folder: string): Promise<boolean> {
  const aside = asideName(folder);
  try {
    await rename(folder, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
  for (let attempt = 1; ; attempt++) {
    try {
      await rm(aside, { recursive: true, force: true });
      return true;
    } catch (error) {
      if (!BUSY.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
      if (attempt === ATTEMPTS) return false;
      // Short and growing: an open file being closed, a write already under way finishing.
      await new Promise((resolve) => setTimeout(resolve, attempt * 5));
    }
  }
}
