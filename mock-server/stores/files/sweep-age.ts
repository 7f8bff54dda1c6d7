/**
 * The start-up sweep's second condition on a shared folder. No row referring to a file is not
 * enough to remove it when other instances work on the same folder: each of them writes a file
 * first and commits the row that refers to it after (an upload being opened, an object being
 * stored, a conversion's previews, a segmentation being staged), and a part or an upload streams
 * for as long as the client sends. Every such file is written, or touched, until its row commits
 * within moments; so what no row refers to AND what has not changed for a grace period is a
 * leftover, not work in progress. With one owner (the data folder locked by one process) there is
 * no one else's work: a grace of 0 removes leftovers at once, as before.
 */
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * Whether `target`, and everything under it, last changed more than `graceMs` ago (by the file
 * system's clock against this machine's: on a network file system they must agree within far less
 * than the grace). A target that is gone counts as untouched.
 */
export async function untouchedFor(target: string, graceMs: number, nowMs = Date.now()): Promise<boolean> {
  if (graceMs <= 0) return true;
  const visit = async (at: string): Promise<boolean> => {
    let stats: import('node:fs').Stats;
    try {
      stats = await lstat(at);
    } catch {
      return true;
    }
    if (nowMs - stats.mtimeMs <= graceMs) return false;
    if (!stats.isDirectory()) return true;
    for (const name of await readdir(at).catch(() => []))
      if (!(await visit(path.join(at, name)))) return false;
    return true;
  };
  return visit(target);
}
