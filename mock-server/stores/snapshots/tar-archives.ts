/**
 * The snapshot archive as a stream of tar bytes (tar-header.ts): written entry by entry with
 * backpressure, and read into a staging folder where each entry is checked against the manifest
 * as it arrives. A staged entry's file is named by its position, never by its name, so no name
 * can reach outside the staging folder; names are still checked so a bad one is refused by name.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  MANIFEST_NAME,
  SnapshotRefused,
  parseManifest,
  type SnapshotManifest,
} from '../../domain/snapshots/snapshot-format.js';
import type {
  SnapshotArchives,
  SnapshotFile,
  SnapshotLimits,
  StagedSnapshot,
} from '../../domain/snapshots/snapshot-ports.js';
import { BLOCK, END_OF_ARCHIVE, TarFormatError, decodeHeader, encodeHeader, padding } from './tar-header.js';
import { ByteReader } from './byte-reader.js';

/** The manifest is read into memory before anything else: it has no business being larger. */
const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

export class TarSnapshotArchives implements SnapshotArchives {
  /** `stagingRoot`: a folder on the data folder's file system, so staged files are renamed into place. */
  constructor(private readonly stagingRoot: string) {}

  write(manifest: SnapshotManifest, entries: readonly SnapshotFile[]): NodeJS.ReadableStream {
    return Readable.from(tarBytes(manifest, entries), { objectMode: false });
  }

  async stage(input: AsyncIterable<Uint8Array>, limits: SnapshotLimits): Promise<StagedSnapshot> {
    await mkdir(this.stagingRoot, { recursive: true });
    const folder = await mkdtemp(path.join(this.stagingRoot, 'snapshot-'));
    try {
      return await readArchive(new ByteReader(input), folder, limits);
    } catch (error) {
      await rm(folder, { recursive: true, force: true });
      if (error instanceof TarFormatError)
        throw new SnapshotRefused(`not a snapshot archive: ${error.message}`);
      throw error;
    }
  }
}

async function* tarBytes(
  manifest: SnapshotManifest,
  entries: readonly SnapshotFile[],
): AsyncGenerator<Buffer> {
  const manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
  yield encodeHeader({ name: MANIFEST_NAME, size: manifestBytes.length });
  yield manifestBytes;
  yield padding(manifestBytes.length);
  for (const entry of entries) {
    yield encodeHeader({ name: entry.name, size: entry.size });
    let written = 0;
    for await (const chunk of await entry.open()) {
      const bytes = chunk as Buffer;
      written += bytes.length;
      // A file that changed since its size was read would shift every header after it.
      if (written > entry.size) throw new Error(`${entry.name} grew while the snapshot was written`);
      yield bytes;
    }
    if (written !== entry.size) throw new Error(`${entry.name} shrank while the snapshot was written`);
    yield padding(entry.size);
  }
  yield END_OF_ARCHIVE;
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
  reader: ByteReader,
  folder: string,
  limits: SnapshotLimits,
): Promise<StagedSnapshot> {
  const first = await nextHeader(reader);
  if (!first || first.name !== MANIFEST_NAME)
    throw new SnapshotRefused(
      `the first entry must be ${MANIFEST_NAME}, found ${first ? `"${first.name}"` : 'none'}`,
    );
  if (first.size > Math.min(MAX_MANIFEST_BYTES, limits.maxBytes))
    throw new SnapshotRefused(`${MANIFEST_NAME} is ${first.size} bytes, over the limit`);
  const manifest = parseManifest((await reader.take(first.size, 'manifest.json')).toString('utf8'));
  await reader.skip(padding(first.size).length);
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
    const header = await nextHeader(reader);
    if (!header)
      throw new SnapshotRefused(`the archive ends before "${expected.name}", which the manifest lists`);
    if (header.name !== expected.name)
      throw new SnapshotRefused(
        `entry "${header.name}" is not the one the manifest lists next ("${expected.name}")`,
      );
    if (header.size !== expected.size)
      throw new SnapshotRefused(
        `entry "${header.name}" is ${header.size} bytes; the manifest says ${expected.size}`,
      );
    const file = path.join(folder, String(index));
    const sha256 = await copyEntry(reader, header.size, file, header.name);
    if (sha256 !== expected.sha256)
      throw new SnapshotRefused(`entry "${header.name}" does not match the SHA-256 the manifest gives`);
    await reader.skip(padding(header.size).length);
    staged.set(header.name, file);
  }
  const extra = await nextHeader(reader);
  if (extra) throw new SnapshotRefused(`entry "${extra.name}" is not listed in the manifest`);
  return {
    manifest,
    names: entries.map((e) => e.name),
    read: (name) => readFile(staged.get(name)!),
    pathOf: (name) => staged.get(name)!,
    discard: () => rm(folder, { recursive: true, force: true }),
  };
}

async function nextHeader(reader: ByteReader) {
  const block = await reader.takeOrEnd(BLOCK);
  if (!block) throw new SnapshotRefused('the archive ends without its end-of-archive blocks (cut short?)');
  const header = decodeHeader(block);
  if (header) checkName(header.name);
  return header;
}

async function copyEntry(reader: ByteReader, size: number, file: string, name: string): Promise<string> {
  const hash = createHash('sha256');
  const handle = await open(file, 'wx', 0o600);
  try {
    for await (const chunk of reader.chunks(size, name)) {
      hash.update(chunk);
      await handle.write(chunk);
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}
