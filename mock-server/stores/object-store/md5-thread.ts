/**
 * The MD5 of a byte range of a file, computed on a thread of its own. A resumable part's ETag is
 * its MD5 (S3's rule), and hashing on the event loop took about 38 % of its busy time while a part
 * streamed in (issue 31): every other request waited behind it, and the socket was read at the
 * pace of the hash. Hashing what was written, once written, leaves the event loop only the bytes'
 * way from socket to file, and runs beside the part's flush to disk.
 *
 * One thread serves every caller in turn (a second core, not a pool: parts arrive at the pace of
 * the network, and one thread hashes faster than that). It is started on first use, keeps the
 * process alive only while it has work, and is started again after a crash; its code is a few lines of plain
 * JavaScript evaluated in place, so the sources, the tests and the bundle in dist/ run it alike.
 */
import { Worker } from 'node:worker_threads';

const READ_BLOCK = 1 << 20;

const THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { closeSync, openSync, readSync } = require('node:fs');
const { createHash } = require('node:crypto');
const block = Buffer.allocUnsafe(${READ_BLOCK});
parentPort.on('message', ({ id, file, fd: given, start, size }) => {
  let fd;
  try {
    fd = given === undefined ? openSync(file, 'r') : given;
    const hash = createHash('md5');
    for (let done = 0; done < size; ) {
      const read = readSync(fd, block, 0, Math.min(block.length, size - done), start + done);
      if (read === 0) throw new Error((file || 'the file') + ' ends ' + (size - done) + ' bytes before the range does');
      hash.update(block.subarray(0, read));
      done += read;
    }
    parentPort.postMessage({ id, md5: hash.digest('hex') });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error), code: error && error.code });
  } finally {
    if (fd !== undefined && given === undefined) closeSync(fd);
  }
});
`;

/** The thread's answer: a digest, or the error (with its errno code, such as ENOENT) that stopped it. */
interface Answer {
  id: number;
  md5?: string;
  error?: string;
  code?: string;
}

interface Pending {
  resolve: (md5: string) => void;
  reject: (error: Error) => void;
}

let thread: Worker | undefined;
const pending = new Map<number, Pending>();
let nextId = 0;

function hashThread(): Worker {
  if (thread) return thread;
  // No flags of the parent's: its loaders are not needed, and --input-type=module would make the
  // source an ES module, where `require` does not exist.
  const started = new Worker(THREAD_SOURCE, { eval: true, execArgv: [] });
  started.on('message', ({ id, md5, error, code }: Answer) => {
    const waiting = pending.get(id);
    pending.delete(id);
    if (pending.size === 0) started.unref();
    if (md5 !== undefined) waiting?.resolve(md5);
    else waiting?.reject(Object.assign(new Error(error), code === undefined ? {} : { code }));
  });
  const lost = (error: Error) => {
    if (thread === started) thread = undefined;
    for (const [id, waiting] of pending) {
      pending.delete(id);
      waiting.reject(error);
    }
  };
  started.on('error', lost);
  started.on('exit', (code) => lost(new Error(`the hashing thread stopped (exit code ${code})`)));
  // After the listeners: adding a 'message' listener refs the thread's port again.
  started.unref();
  thread = started;
  return started;
}

/**
 * Where the bytes are: a file by name, or a descriptor this process holds open (threads share
 * descriptors), which reads what was written through it wherever the file has been renamed since.
 * The caller keeps the descriptor open until the digest is answered.
 */
export type HashedRange = ({ file: string } | { fd: number }) & { start: number; size: number };

/** The hex MD5 of the range; rejects if the file is shorter. */
export function md5OfRange(range: HashedRange): Promise<string> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const worker = hashThread();
    // Held while it has work, so a process waiting on nothing else still gets its digest.
    if (pending.size === 0) worker.ref();
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, ...range });
  });
}
