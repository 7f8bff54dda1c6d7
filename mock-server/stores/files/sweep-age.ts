/**
 * Which unreferenced files the start-up sweep may remove. No row referring to a file is not enough:
 * work writes a file first and commits the row that refers to it after (an upload being opened, an
 * object being stored, a conversion's previews, a segmentation being staged), and a part or an
 * upload streams for as long as the client sends. That work may be this process's own (the sweep
 * runs in the background while the mock answers) or, on a shared folder, another instance's. So
 * the sweep removes only what also last changed before it started (this process's own work is
 * younger), and on a shared folder only what has not changed for a grace period before that
 * (every other instance's file is written, or touched, until its row commits within moments).
 */
import { lstat, readdir, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

/**
 * The file system's clock now, read from a file made in `dir` and removed: file times come from a
 * coarser clock than `Date.now()` (a file made just after a `Date.now()` may carry an earlier time),
 * so the cut-off between what was there before and what came after is taken on the same clock.
 */
export async function fileSystemNow(dir: string): Promise<number> {
  const probe = path.join(dir, `.sweep-clock-${randomBytes(6).toString('hex')}`);
  await writeFile(probe, '');
  try {
    return (await lstat(probe)).mtimeMs;
  } finally {
    await rm(probe, { force: true });
  }
}

/**
 * Whether `target`, and everything under it, last changed no later than `cutoffMs` (by the file
 * system's clock: on a network file system, instances' clocks must agree within far less than a
 * shared folder's grace). A target that is gone counts as unchanged.
 */
export async function unchangedSince(target: string, cutoffMs: number): Promise<boolean> {
  const visit = async (at: string): Promise<boolean> => {
    let stats: import('node:fs').Stats;
    try {
      stats = await lstat(at);
    } catch {
      return true;
    }
    if (stats.mtimeMs > cutoffMs) return false;
    if (!stats.isDirectory()) return true;
    for (const name of await entriesOf(at)) if (!(await visit(path.join(at, name)))) return false;
    return true;
  };
  return visit(target);
}

/** Removes `target` (and everything under it) if it last changed no later than `cutoffMs`; answers how many it removed. */
export async function removeIfUnchanged(target: string, cutoffMs: number): Promise<number> {
  if (!(await unchangedSince(target, cutoffMs))) return 0;
  await rm(target, { recursive: true, force: true });
  return 1;
}

/** The names in a folder the sweep looks at; none when it is gone (or not a folder). */
export async function entriesOf(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}
