/**
 * A lock that holds across processes sharing a folder (several mock instances on one network
 * file system): a lock file created with O_EXCL (`open(path, 'wx')`), which NFSv3 and later make
 * atomic on the server. Node has no flock() without a native module, and flock over NFS is
 * emulated with byte-range locks that depend on the lock daemon; a file that either exists or not
 * needs nothing but the file system the store already relies on for its renames.
 *
 * The file holds its owner (host, pid, a token per process and one per holding) and is touched
 * while held, so a holder that died is told from one that works:
 *   - on the same host, a holder whose pid is gone, or whose pid is ours with another process
 *     token (a restarted container is pid 1 again), or this process with a holding it no longer
 *     has (a file its release could not remove), is dead at once;
 *   - anywhere else, a lock not touched for `staleMs` is dead (clocks must agree within that).
 * A dead lock is removed by one waiter at a time, and only while it is still the file judged dead
 * (takeOverIfDead), so waiters judging it at once never both take the lock.
 *
 * Limits: a holder that stops for longer than `staleMs` (SIGSTOP, a partition from the file
 * server) can lose its lock while it still runs. The work done under these locks is short (a
 * record rename, a complete's rename or copy), and the file is touched throughout.
 */
import { randomBytes } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import os from 'node:os';

import { KeyedLock } from './keyed-lock.js';

/** One per process: tells this process from an earlier one that had the same pid. */
const PROCESS_TOKEN = randomBytes(8).toString('hex');
/** The holdings of this process's locks still held, so a file one of them left behind is told apart. */
const heldHere = new Set<string>();

interface LockOwner {
  host: string;
  pid: number;
  process: string;
  holding: string;
}

export interface FolderLockOptions {
  /** A lock not touched for this long, held on another host, is taken over. Default 10 s. */
  staleMs?: number;
}

export class FolderLocks {
  /** Tasks of this process on one key wait in memory: only one of them polls the file. */
  private readonly local = new KeyedLock();
  private readonly staleMs: number;
  private readonly host = os.hostname();

  constructor(options: FolderLockOptions = {}) {
    this.staleMs = options.staleMs ?? 10_000;
  }

  /**
   * Runs `task` holding the lock file `file`. When the folder that would hold it is gone (the
   * upload was completed or aborted elsewhere), throws what `gone()` makes.
   */
  run<T>(key: string, file: string, task: () => Promise<T>, gone: () => Error): Promise<T> {
    return this.local.run(key, async () => {
      const release = await this.acquire(file, gone);
      try {
        return await task();
      } finally {
        await release();
      }
    });
  }

  private async acquire(file: string, gone: () => Error): Promise<() => Promise<void>> {
    const owner: LockOwner = {
      host: this.host,
      pid: process.pid,
      process: PROCESS_TOKEN,
      holding: randomBytes(8).toString('hex'),
    };
    // Known as held here before the file can be read: no waiter of this process may judge it left behind.
    heldHere.add(owner.holding);
    try {
      for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
        try {
          const handle = await fsp.open(file, 'wx');
          try {
            await handle.writeFile(JSON.stringify(owner));
          } finally {
            await handle.close();
          }
          return this.held(file, owner);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'ENOENT') throw gone();
          if (code !== 'EEXIST') throw error;
        }
        if (await this.takeOverIfDead(file)) continue;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    } catch (error) {
      heldHere.delete(owner.holding);
      throw error;
    }
  }

  /** Touches the file while held (so no one judges it dead); removes it, if still ours, after. */
  private held(file: string, owner: LockOwner): () => Promise<void> {
    const touch = setInterval(() => {
      const now = new Date();
      fsp.utimes(file, now, now).catch(() => undefined);
    }, this.staleMs / 4);
    touch.unref();
    return async () => {
      clearInterval(touch);
      heldHere.delete(owner.holding);
      // Gone with its folder (a complete, an abort), or taken over: then it is not ours to remove.
      const now = parseOwner(await fsp.readFile(file, 'utf8').catch(() => ''));
      if (now?.holding === owner.holding) await fsp.rm(file, { force: true });
    };
  }

  /**
   * Removes a dead lock so the next attempt can take it. One waiter at a time does (it holds
   * `<lock>.takeover`, made with O_EXCL), and only if the file is still the one judged dead: same
   * inode, same time, same content (an inode is soon reused; a holding is not). A dead holder
   * touches nothing and no other waiter removes it meanwhile, so the check cannot go stale.
   */
  private async takeOverIfDead(file: string): Promise<boolean> {
    const judged = await snapshot(file);
    if (judged === undefined) return true; // released meanwhile: try again at once
    if (!this.isDead(parseOwner(judged.text), judged.mtimeMs)) return false;
    const guard = `${file}.takeover`;
    try {
      await fsp.writeFile(guard, '', { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return true; // the folder is gone
      // Another waiter is at it; a guard left by one killed in these few steps goes after staleMs.
      const left = await fsp.stat(guard).catch(() => undefined);
      if (left !== undefined && Date.now() - left.mtimeMs > this.staleMs)
        await fsp.rm(guard, { force: true });
      return false;
    }
    try {
      const now = await snapshot(file);
      if (now?.ino === judged.ino && now.mtimeMs === judged.mtimeMs && now.text === judged.text)
        await fsp.rm(file, { force: true });
    } finally {
      await fsp.rm(guard, { force: true });
    }
    return true;
  }

  private isDead(owner: LockOwner | undefined, touchedMs: number): boolean {
    if (owner?.host === this.host) {
      if (owner.process === PROCESS_TOKEN) return !heldHere.has(owner.holding);
      if (owner.pid === process.pid || !isAlive(owner.pid)) return true;
    }
    // Unreadable (being written right now) or another host's: only its age tells.
    return Date.now() - touchedMs > this.staleMs;
  }
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    return JSON.parse(text) as LockOwner;
  } catch {
    return undefined; // being written at this moment
  }
}

/** The lock file as it is now: what identifies this very file among those the name will hold. */
async function snapshot(file: string): Promise<{ ino: number; mtimeMs: number; text: string } | undefined> {
  try {
    const { ino, mtimeMs } = await fsp.stat(file);
    return { ino, mtimeMs, text: await fsp.readFile(file, 'utf8') };
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
