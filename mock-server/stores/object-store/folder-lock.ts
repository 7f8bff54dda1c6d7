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
 *     token (a restarted container is pid 1 again), is dead at once;
 *   - anywhere else, a lock not touched for `staleMs` is dead (clocks must agree within that).
 * A dead lock is renamed aside and checked to be the file judged (same inode) before it is
 * removed, so two waiters judging it at once do not both take the lock.
 *
 * Limits: a holder that stops for longer than `staleMs` (SIGSTOP, a partition from the file
 * server) can lose its lock while it still runs; three processes judging one dead lock within
 * the same instant can, in the worst case, both hold the new one. The work done under these locks
 * is short (a record rename, a complete's rename or copy), and is touched throughout.
 */
import { randomBytes } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import os from 'node:os';

import { KeyedLock } from './keyed-lock.js';

/** One per process: tells this process from an earlier one that had the same pid. */
const PROCESS_TOKEN = randomBytes(8).toString('hex');

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
      // Gone with its folder (a complete, an abort), or taken over: then it is not ours to remove.
      if ((await readOwner(file))?.holding === owner.holding) await fsp.rm(file, { force: true });
    };
  }

  private async takeOverIfDead(file: string): Promise<boolean> {
    let judged: import('node:fs').Stats;
    try {
      judged = await fsp.stat(file);
    } catch {
      return true; // released meanwhile: try again at once
    }
    if (!this.isDead(await readOwner(file), judged.mtimeMs)) return false;
    const aside = `${file}.dead-${randomBytes(6).toString('hex')}`;
    try {
      await fsp.rename(file, aside);
    } catch {
      return true; // someone else took it over first
    }
    const moved = await fsp.stat(aside).catch(() => undefined);
    if (moved !== undefined && moved.ino !== judged.ino) {
      // A live lock taken meanwhile was moved: put it back (link never replaces a file).
      await fsp.link(aside, file).catch(() => undefined);
    }
    await fsp.rm(aside, { force: true });
    return true;
  }

  private isDead(owner: LockOwner | undefined, touchedMs: number): boolean {
    if (owner?.host === this.host) {
      if (owner.process === PROCESS_TOKEN) return false; // this process: it releases its own
      if (owner.pid === process.pid || !isAlive(owner.pid)) return true;
    }
    // Unreadable (being written right now) or another host's: only its age tells.
    return Date.now() - touchedMs > this.staleMs;
  }
}

async function readOwner(file: string): Promise<LockOwner | undefined> {
  try {
    return JSON.parse(await fsp.readFile(file, 'utf8')) as LockOwner;
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
