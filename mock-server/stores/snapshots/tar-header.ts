/**
 * The 512-byte headers of a POSIX ustar archive, the only kind a snapshot is: regular files, names
 * up to 255 bytes (split into prefix and name), mode 0644, owner 0, mtime 0, so the same entries
 * give the same bytes. Reading refuses what a snapshot never holds (links, devices, directories,
 * pax or GNU extensions) instead of interpreting it.
 */
export const BLOCK = 512;

export interface TarHeader {
  name: string;
  size: number;
}

export class TarFormatError extends Error {}

function writeOctal(block: Buffer, offset: number, length: number, value: number): void {
  block.write(value.toString(8).padStart(length - 1, '0') + '\0', offset, length, 'ascii');
}

function splitName(name: string): { prefix: string; base: string } {
  if (Buffer.byteLength(name) <= 100) return { prefix: '', base: name };
  for (let cut = name.indexOf('/'); cut !== -1; cut = name.indexOf('/', cut + 1)) {
    const prefix = name.slice(0, cut);
    const base = name.slice(cut + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(base) <= 100) return { prefix, base };
  }
  throw new TarFormatError(`entry name too long for a ustar header: ${name}`);
}

export function encodeHeader({ name, size }: TarHeader): Buffer {
  const block = Buffer.alloc(BLOCK);
  const { prefix, base } = splitName(name);
  block.write(base, 0, 100, 'utf8');
  writeOctal(block, 100, 8, 0o644);
  writeOctal(block, 108, 8, 0);
  writeOctal(block, 116, 8, 0);
  writeOctal(block, 124, 12, size);
  writeOctal(block, 136, 12, 0);
  block.fill(' ', 148, 156);
  block.write('0', 156, 1, 'ascii');
  block.write('ustar\u000000', 257, 8, 'ascii');
  block.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8, 'ascii');
  return block;
}

/** Zeros after an entry's content, to its block's end. */
export const padding = (size: number) => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);

/** Two zero blocks end an archive. */
export const END_OF_ARCHIVE = Buffer.alloc(2 * BLOCK);

function text(block: Buffer, offset: number, length: number): string {
  const end = block.indexOf(0, offset);
  return block.toString('utf8', offset, end === -1 || end > offset + length ? offset + length : end);
}

function octal(block: Buffer, offset: number, length: number, field: string): number {
  const raw = text(block, offset, length).trim();
  if (!/^[0-7]{1,12}$/.test(raw)) throw new TarFormatError(`header field ${field} is not an octal number`);
  return parseInt(raw, 8);
}

const TYPE_NAMES: Record<string, string> = {
  '1': 'a hard link',
  '2': 'a symbolic link',
  '3': 'a character device',
  '4': 'a block device',
  '5': 'a directory',
  '6': 'a FIFO',
  x: 'a pax extended header',
  g: 'a pax global header',
  L: 'a GNU long name',
  K: 'a GNU long link',
};

/** A header block, or undefined for the zero block that ends the archive. */
export function decodeHeader(block: Buffer): TarHeader | undefined {
  if (block.every((byte) => byte === 0)) return undefined;
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : block[i];
  if (octal(block, 148, 8, 'checksum') !== sum) throw new TarFormatError('a header checksum does not match');
  const base = text(block, 0, 100);
  const prefix = block.toString('ascii', 257, 262) === 'ustar' ? text(block, 345, 155) : '';
  const name = prefix ? `${prefix}/${base}` : base;
  const type = String.fromCharCode(block[156]);
  if (type !== '0' && type !== '\0')
    throw new TarFormatError(
      `entry "${name}" is ${TYPE_NAMES[type] ?? `of type '${type}'`}, not a regular file`,
    );
  return { name, size: octal(block, 124, 12, 'size') };
}
