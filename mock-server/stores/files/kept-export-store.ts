/**
 * The domain's KeptExports on the data folder: `segmentations/<id>/exports/<key>.<etag>.<size>`
 * (stores/data-layout.ts). A render is written under incoming/ (same file system; the start-up
 * sweep removes what a crash leaves there), made durable, then renamed into place: any instance
 * sharing the folder finds a whole file or none. The length in the name is checked against the
 * file before it is served, so a file cut short by hand or by a crash is rendered again instead.
 * The folder sits inside the segmentation's own: deleting the segmentation or loading a snapshot
 * over it takes its renders along, and snapshots never carry them (they are re-derivable).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ExportBody, KeptExport, KeptExports } from '../../domain/exports/kept-exports.js';
import type { DataLayout } from '../data-layout.js';

const KEPT_NAME = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})\.(\d{1,15})$/;
/** Small chunks (a CSV row each) are gathered into writes of about this size. */
const WRITE_BLOCK = 256 * 1024;

export class KeptExportFileStore implements KeptExports {
  constructor(
    private readonly layout: DataLayout,
    /** Variants kept per segmentation (the overlay's options alone make many); at least 1. */
    private readonly variantsKept: number,
  ) {
    if (!(Number.isSafeInteger(variantsKept) && variantsKept >= 1))
      throw new RangeError(`variants kept must be an integer of at least 1, got ${variantsKept}`);
  }

  async find(segmentationId: string, key: string): Promise<KeptExport | undefined> {
    const folder = this.layout.keptExportsOf(segmentationId);
    for (const name of await namesIn(folder)) {
      const parsed = KEPT_NAME.exec(name);
      if (parsed?.[1] === key) return keptFile(path.join(folder, name), parsed[2], Number(parsed[3]));
    }
    return undefined;
  }

  async keep(segmentationId: string, key: string, body: ExportBody): Promise<KeptExport | undefined> {
    const temp = path.join(this.layout.incoming, `.export-${randomBytes(8).toString('hex')}.tmp`);
    try {
      const { etag, size } = await writeDurably(temp, body);
      const folder = this.layout.keptExportsOf(segmentationId);
      // Not recursive: a segmentation deleted meanwhile must not get its folder back.
      if (!(await madeOrThere(folder))) return undefined;
      const name = `${key}.${etag}.${size}`;
      try {
        await rename(temp, path.join(folder, name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      await this.evictBeyondBound(folder, name);
      return keptFile(path.join(folder, name), etag, size);
    } finally {
      await rm(temp, { force: true });
    }
  }

  /** The oldest rendered go first; one being read stays readable (an open file outlives its name). */
  private async evictBeyondBound(folder: string, newest: string): Promise<void> {
    const names = (await namesIn(folder)).filter((n) => n !== newest && KEPT_NAME.test(n));
    if (names.length < this.variantsKept) return;
    const aged = await Promise.all(
      names.map(async (name) => ({
        name,
        mtime: await stat(path.join(folder, name)).then(
          (s) => s.mtimeMs,
          () => Infinity,
        ),
      })),
    );
    aged.sort((a, b) => a.mtime - b.mtime);
    for (const { name } of aged.slice(0, names.length - this.variantsKept + 1))
      await rm(path.join(folder, name), { force: true });
  }
}

function keptFile(file: string, hash: string, size: number): KeptExport {
  return {
    etag: `"${hash}"`,
    size,
    async open() {
      let handle;
      try {
        handle = await open(file, 'r');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      if ((await handle.stat()).size !== size) {
        await handle.close();
        await rm(file, { force: true });
        return undefined;
      }
      return handle.createReadStream();
    },
  };
}

async function writeDurably(file: string, body: ExportBody): Promise<{ etag: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  const handle = await open(file, 'wx');
  try {
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      if (!pendingBytes) return;
      await handle.write(Buffer.concat(pending, pendingBytes));
      pending = [];
      pendingBytes = 0;
    };
    for await (const chunk of body) {
      const bytes =
        typeof chunk === 'string'
          ? Buffer.from(chunk, 'utf8')
          : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      hash.update(bytes);
      size += bytes.length;
      pending.push(bytes);
      pendingBytes += bytes.length;
      if (pendingBytes >= WRITE_BLOCK) await flush();
    }
    await flush();
    await handle.sync();
  } finally {
    await handle.close();
  }
  return { etag: hash.digest('base64url').slice(0, 22), size };
}

async function madeOrThere(folder: string): Promise<boolean> {
  try {
    await mkdir(folder);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return true;
    if (code === 'ENOENT') return false;
    throw error;
  }
}

async function namesIn(folder: string): Promise<string[]> {
  try {
    return await readdir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
