import { constants, createReadStream } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { SnapshotRefused } from '../domain/snapshots/snapshot-format.js';

/** The snapshot named by --snapshot, opened; a file that cannot be read stops the start with one line. */
export async function snapshotFile(file: string): Promise<AsyncIterable<Uint8Array>> {
  try {
    await access(file, constants.R_OK);
    // A folder passes the check above and fails only as it is read, past the one-line error.
    if ((await stat(file)).isDirectory()) throw Object.assign(new Error(file), { code: 'EISDIR' });
  } catch (error) {
    throw new SnapshotRefused(`--snapshot ${file} cannot be read (${(error as { code?: string }).code})`);
  }
  return createReadStream(file) as AsyncIterable<Buffer>;
}
