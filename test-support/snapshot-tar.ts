/**
 * Snapshot archives for tests: a tar read into its entries, changed, and written back, with a
 * header writer that can say what the mock never writes (links, directories, wrong sizes), so the
 * hostile-archive corpus is built from a real snapshot plus one lie at a time.
 */
import { createHash } from 'node:crypto';

export interface TarEntry {
  name: string;
  content: Buffer;
  /** ustar type flag: '0' a file (default), '1' hard link, '2' symlink, '5' directory. */
  type?: string;
  /** The size the header claims, when it is not the content's. */
  claimedSize?: number;
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function header(entry: TarEntry): Buffer {
  const block = Buffer.alloc(512);
  const octal = (offset: number, length: number, value: number) =>
    block.write(value.toString(8).padStart(length - 1, '0') + '\0', offset, length, 'ascii');
  let name = entry.name;
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', 155);
    prefix = name.slice(0, cut);
    name = name.slice(cut + 1);
  }
  block.write(name, 0, 100, 'utf8');
  octal(100, 8, 0o644);
  octal(108, 8, 0);
  octal(116, 8, 0);
  octal(124, 12, entry.claimedSize ?? entry.content.length);
  octal(136, 12, 0);
  block.fill(' ', 148, 156);
  block.write(entry.type ?? '0', 156, 1, 'ascii');
  if (entry.type === '2' || entry.type === '1') block.write('/etc/passwd', 157, 100, 'utf8');
  block.write('ustar\u000000', 257, 8, 'ascii');
  block.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8, 'ascii');
  return block;
}

export function writeTar(entries: TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    parts.push(header(entry), entry.content, Buffer.alloc((512 - (entry.content.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

export function readTar(archive: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  for (let at = 0; at + 512 <= archive.length;) {
    const block = archive.subarray(at, at + 512);
    if (block.every((b) => b === 0)) break;
    const text = (offset: number, length: number) => {
      const raw = block.subarray(offset, offset + length);
      const end = raw.indexOf(0);
      return raw.subarray(0, end === -1 ? length : end).toString('utf8');
    };
    const prefix = text(345, 155);
    const name = prefix ? `${prefix}/${text(0, 100)}` : text(0, 100);
    const size = parseInt(text(124, 12), 8);
    entries.push({ name, content: Buffer.from(archive.subarray(at + 512, at + 512 + size)) });
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return entries;
}

/** The manifest of a snapshot's entries, parsed. */
export function manifestOf(entries: TarEntry[]): Record<string, unknown> & {
  entries: Array<{ name: string; size: number; sha256: string }>;
  tables: Record<string, number>;
} {
  return JSON.parse(entries[0].content.toString('utf8'));
}

/** The archive with its manifest replaced (the entries after it unchanged). */
export function withManifest(entries: TarEntry[], manifest: object): TarEntry[] {
  return [{ name: 'manifest.json', content: Buffer.from(JSON.stringify(manifest)) }, ...entries.slice(1)];
}

/** Replaces one entry's content and lists its true size and hash in the manifest: a consistent edit. */
export function withEntry(entries: TarEntry[], name: string, content: Buffer): TarEntry[] {
  const manifest = manifestOf(entries);
  manifest.entries = manifest.entries.map((e) =>
    e.name === name ? { name, size: content.length, sha256: sha256(content) } : e,
  );
  return withManifest(
    entries.map((e) => (e.name === name ? { ...e, content } : e)),
    manifest,
  );
}

/** Adds an entry at the end, listed in the manifest with its true size and hash. */
export function withExtraEntry(entries: TarEntry[], extra: TarEntry): TarEntry[] {
  const manifest = manifestOf(entries);
  manifest.entries.push({ name: extra.name, size: extra.content.length, sha256: sha256(extra.content) });
  return [...withManifest(entries, manifest), extra];
}
