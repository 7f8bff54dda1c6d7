/**
 * Local copies of a remote store's objects, for decoders that read files: made once per key (a
 * file named by the key's hash), kept until forgotten. The start-up sweep empties the folder.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

export class LocalCopies {
  constructor(private readonly folder: string) {}

  async fileOf(key: string, read: () => Promise<NodeJS.ReadableStream>): Promise<string> {
    const target = this.pathOf(key);
    try {
      await fsp.access(target);
      return target;
    } catch {
      await fsp.mkdir(this.folder, { recursive: true });
      const temporary = `${target}.${randomBytes(4).toString('hex')}.tmp`;
      try {
        await pipeline(await read(), createWriteStream(temporary));
        await fsp.rename(temporary, target);
      } catch (error) {
        await fsp.rm(temporary, { force: true });
        throw error;
      }
      return target;
    }
  }

  async forget(key: string): Promise<void> {
    await fsp.rm(this.pathOf(key), { force: true });
  }

  private pathOf(key: string): string {
    return path.join(this.folder, createHash('sha256').update(key).digest('hex'));
  }
}
