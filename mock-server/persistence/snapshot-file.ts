import { mkdir, open, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import type { StateSnapshot } from './state-snapshot.js';

/**
 * The state file in the data folder. Each save writes a temporary file, syncs it and renames it
 * over the old one, so a `kill -9` at any moment leaves either the previous or the new state, both
 * complete.
 */
export class SnapshotFile {
  /** The last state saved or loaded, without its time stamp. */
  private lastKey = '';
  private writing: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {}

  async load(): Promise<StateSnapshot | undefined> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    const snapshot = JSON.parse(text) as StateSnapshot;
    this.lastKey = JSON.stringify({ ...snapshot, savedAt: undefined });
    return snapshot;
  }

  /** Writes only when something changed since the last save; saves never overlap. */
  save(snapshot: StateSnapshot): Promise<void> {
    const key = JSON.stringify({ ...snapshot, savedAt: undefined });
    if (key === this.lastKey) return this.writing;
    this.lastKey = key;
    this.writing = this.writing.then(() => this.write(JSON.stringify(snapshot)));
    return this.writing;
  }

  private async write(text: string): Promise<void> {
    await mkdir(path.dirname(this.file), { recursive: true });
    const temporary = `${this.file}.${process.pid}.tmp`;
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, this.file);
  }
}
