/**
 * The snapshot archive as a stream of ustar bytes (tar-stream): written entry by entry with
 * backpressure, and read into a staging folder where each entry is checked against the manifest
 * as it arrives. A staged entry's file is named by its position, never by its name, so no name
 * can reach outside the staging folder; names are still checked so a bad one is refused by name.
 * Every entry is a regular file, mode 0644, owner 0, mtime 0, so the same entries give the same
 * bytes; reading refuses what a snapshot never holds (links, devices, directories).
 */
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { extract, pack, type Extract, type Header, type Pack } from 'tar-stream';
import {
  MANIFEST_NAME,
  SnapshotRefused,
  SnapshotSourceChanged,
  parseManifest,
  type SnapshotManifest,
} from '../../domain/snapshots/snapshot-format.js';
import { storageFull } from '../../domain/errors.js';
import { isMissing } from '../object-store/store-errors.js';
import type {
  SnapshotArchives,
  SnapshotFile,
  SnapshotLimits,
  StagedSnapshot,
  WrittenArchive,
} from '../../domain/snapshots/snapshot-ports.js';

/** One entry as it arrives: its header, and its bytes to read before the next entry. */
type Source = Extract extends AsyncIterable<infer Entry> ? Entry : never;

/** The manifest is read into memory before anything else: it has no business being larger. */
const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

const NOT_A_FILE: Partial<Record<string, string>> = {
  link: 'a hard link',
  symlink: 'a symbolic link',
  'character-device': 'a character device',
  'block-device': 'a block device',
  directory: 'a directory',
  fifo: 'a FIFO',
  'contiguous-file': 'a contiguous file',
};

export class TarSnapshotArchives implements SnapshotArchives {
  /** `stagingRoot`: a folder on the data folder's file system, so staged files are renamed into place. */
  constructor(private readonly stagingRoot: string) {}

  async write(manifest: SnapshotManifest, entries: readonly SnapshotFile[]): Promise<WrittenArchive> {
    await mkdir(this.stagingRoot, { recursive: true });
    const file = path.join(this.stagingRoot, `take-${randomUUID()}.tar`);
    const archive = pack();
    try {
      await Promise.all([
        packEntries(archive, manifest, entries).catch((error: unknown) => {
          archive.destroy(error as Error);
          throw error;
        }),
        pipeline(archive, createWriteStream(file)),
      ]);
    } catch (error) {
      await rm(file, { force: true });
      // The disk the archive is written to is full: the take is refused as any write that finds no room.
      const { code } = (error ?? {}) as { code?: unknown };
      throw code === 'ENOSPC' || code === 'EDQUOT' ? storageFull() : error;
    }
    // Removed as soon as it is open: the handle keeps its bytes until the answer has read them,
    // and no leftover is possible once the take has answered.
    const handle = await open(file);
    await rm(file, { force: true });
    const { size } = await handle.stat();
    return { size, read: () => handle.createReadStream() };
  }

  async stage(input: AsyncIterable<Uint8Array>, limits: SnapshotLimits): Promise<StagedSnapshot> {
    await mkdir(this.stagingRoot, { recursive: true });
    const folder = await mkdtemp(path.join(this.stagingRoot, 'snapshot-'));
    const source = Readable.from(input, { objectMode: false });
    const archive = extract();
    // An entry's bytes cut off answer only "destroyed": why is the archive's own error.
    let broken: Error | undefined;
    archive.on('error', (error) => (broken = error));
    source.on('error', (error) => archive.destroy(error));
    source.pipe(archive);
    try {
      return await readArchive(archive[Symbol.asyncIterator](), folder, limits);
    } catch (error) {
      await rm(folder, { recursive: true, force: true });
      throw refusalOf(broken ?? error);
    } finally {
      archive.destroy();
      source.destroy();
    }
  }
}

/** Fixed owner, mode and time: the same entries give the same bytes. */
const fileHeader = (name: string, size: number): Header =>
  ({ name, size, type: 'file', mode: 0o644, uid: 0, gid: 0, mtime: new Date(0) }) as Header;

async function packEntries(
  archive: Pack,
  manifest: SnapshotManifest,
  entries: readonly SnapshotFile[],
): Promise<void> {
  const manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
  archive.entry(fileHeader(MANIFEST_NAME, manifestBytes.length), manifestBytes);
  // A file that changed since its size was read fails its entry ('Size mismatch'), one that went
  // fails to open or read: either is a delete since the manifest was made.
  for (const entry of entries)
    try {
      await pipeline(await entry.open(), archive.entry(fileHeader(entry.name, entry.size)));
    } catch (error) {
      throw sourceChanged(error) ? new SnapshotSourceChanged(entry.name) : error;
    }
  archive.finalize();
}

/** A file gone (from the data folder, or the object store's NoSuchKey) or resized (tar-stream's refusal). */
function sourceChanged(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return isMissing(error) || code === 'NoSuchKey' || message === 'Size mismatch';
}

/** tar-stream's refusals of the bytes carry no code; the disk's and the connection's do, and pass as they are. */
function refusalOf(error: unknown): unknown {
  if (error instanceof SnapshotRefused || !(error instanceof Error) || 'code' in error) return error;
  return new SnapshotRefused(
    error.message === 'Unexpected end of data'
      ? 'the archive is cut short in the middle of an entry'
      : `not a snapshot archive: ${error.message}`,
  );
}

/** What an entry's name must look like: relative, plain segments, nothing that walks up. */
function checkName(name: string): void {
  const problem =
    name.startsWith('/') || /^[A-Za-z]:/.test(name)
      ? 'is an absolute path'
      : name.split('/').some((segment) => segment === '..')
        ? 'walks out of the archive (..)'
        : name.includes('\\') || name.includes('\0') || name.split('/').some((s) => s === '' || s === '.')
          ? 'is not a plain relative path'
          : undefined;
  if (problem) throw new SnapshotRefused(`entry "${name}" ${problem}`);
}

async function readArchive(
  archive: AsyncIterator<Source>,
  folder: string,
  limits: SnapshotLimits,
): Promise<StagedSnapshot> {
  const first = await nextEntry(archive);
  if (first?.name !== MANIFEST_NAME)
    throw new SnapshotRefused(
      `the first entry must be ${MANIFEST_NAME}, found ${first ? `"${first.name}"` : 'none'}`,
    );
  if (first.size > Math.min(MAX_MANIFEST_BYTES, limits.maxBytes))
    throw new SnapshotRefused(`${MANIFEST_NAME} is ${first.size} bytes, over the limit`);
  const chunks: Buffer[] = [];
  for await (const chunk of first.content) chunks.push(chunk as Buffer);
  const manifest = parseManifest(Buffer.concat(chunks).toString('utf8'));
  const entries = manifest.entries;
  if (entries.length + 1 > limits.maxEntries)
    throw new SnapshotRefused(
      `the manifest lists ${entries.length + 1} entries, over the limit of ${limits.maxEntries}`,
    );
  const total = entries.reduce((sum, e) => sum + e.size, first.size);
  if (total > limits.maxBytes)
    throw new SnapshotRefused(
      `the manifest's entries add up to ${total} bytes, over the limit of ${limits.maxBytes}`,
    );
  const staged = new Map<string, string>();
  for (const [index, expected] of entries.entries()) {
    const entry = await nextEntry(archive);
    if (!entry)
      throw new SnapshotRefused(
        `the archive ends (cut short?) before "${expected.name}", which the manifest lists`,
      );
    if (entry.name !== expected.name)
      throw new SnapshotRefused(
        `entry "${entry.name}" is not the one the manifest lists next ("${expected.name}")`,
      );
    if (entry.size !== expected.size)
      throw new SnapshotRefused(
        `entry "${entry.name}" is ${entry.size} bytes; the manifest says ${expected.size}`,
      );
    const file = path.join(folder, String(index));
    if ((await copyEntry(entry.content, file)) !== expected.sha256)
      throw new SnapshotRefused(`entry "${entry.name}" does not match the SHA-256 the manifest gives`);
    staged.set(entry.name, file);
  }
  const extra = await nextEntry(archive);
  if (extra) throw new SnapshotRefused(`entry "${extra.name}" is not listed in the manifest`);
  return {
    manifest,
    names: entries.map((e) => e.name),
    read: (name) => readFile(staged.get(name)!),
    pathOf: (name) => staged.get(name)!,
    discard: () => rm(folder, { recursive: true, force: true }),
  };
}

/** The next entry, refused unless it is a regular file with a plain relative name. */
async function nextEntry(
  archive: AsyncIterator<Source>,
): Promise<{ name: string; size: number; content: Source } | undefined> {
  const next = await archive.next();
  if (next.done) return undefined;
  const { name, size, type } = next.value.header;
  if (type !== 'file')
    throw new SnapshotRefused(
      `entry "${name}" is ${NOT_A_FILE[type] ?? `of type ${String(type)}`}, not a regular file`,
    );
  checkName(name);
  return { name, size, content: next.value };
}

async function copyEntry(content: Source, file: string): Promise<string> {
  const hash = createHash('sha256');
  const handle = await open(file, 'wx', 0o600);
  try {
    for await (const chunk of content) {
      hash.update(chunk as Buffer);
      await handle.write(chunk as Buffer);
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}
