/**
 * The MD5 of bytes written to a file, computed on a thread of its own while they are written. A
 * resumable part's ETag is its MD5 (S3's rule), and hashing on the event loop took about 38 % of
 * its busy time while a part streamed in: every other request waited behind it. Here
 * the event loop only says how far the bytes are written (`advance`); the thread reads them back
 * (from the page cache) and hashes them as they come, so the digest is ready about when the last
 * byte is, beside the part's flush.
 *
 * One thread serves every job in turn (a second core, not a pool: parts arrive at the pace of the
 * network, and one thread hashes faster than that). It is started on first use, keeps the process
 * alive only while a digest is awaited, and is started again after a crash; its code is a few
 * lines of plain JavaScript evaluated in place, so the sources, the tests and the bundle in dist/
 * run it alike.
 */
import { Worker } from 'node:worker_threads';

const READ_BLOCK = 1 << 20;
/** How far the bytes must move before the thread is told: a message per megabyte, not per chunk. */
const ADVANCE_STEP = 1 << 20;

const THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { closeSync, openSync, readSync } = require('node:fs');
const { createHash } = require('node:crypto');
const block = Buffer.allocUnsafe(${READ_BLOCK});
const jobs = new Map();
function hashUpTo(job, upTo) {
  while (job.done < upTo) {
    const read = readSync(job.fd, block, 0, Math.min(block.length, upTo - job.done), job.start + job.done);
    if (read === 0) throw new Error((job.file || 'the file') + ' ends ' + (upTo - job.done) + ' bytes before the range does');
    job.hash.update(block.subarray(0, read));
    job.done += read;
  }
}
parentPort.on('message', (m) => {
  if (m.op === 'open') {
    const job = { fd: m.fd, own: m.fd === undefined, file: m.file, start: m.start, done: 0, hash: createHash('md5') };
    try {
      if (job.own) job.fd = openSync(m.file, 'r');
    } catch (error) {
      job.error = error;
      job.fd = undefined;
    }
    jobs.set(m.id, job);
    return;
  }
  const job = jobs.get(m.id);
  if (!job) return;
  if (m.op === 'advance') {
    // pread only: a descriptor closed and reused meanwhile (a dropped job) loses no one's bytes.
    if (!job.error) try { hashUpTo(job, m.upTo); } catch (error) { job.error = error; }
    return;
  }
  jobs.delete(m.id);
  try {
    if (m.op !== 'finish') return;
    if (job.error) throw job.error;
    hashUpTo(job, m.size);
    parentPort.postMessage({ id: m.id, md5: job.hash.digest('hex') });
  } catch (error) {
    parentPort.postMessage({ id: m.id, error: String((error && error.message) || error), code: error && error.code });
  } finally {
    if (job.own && job.fd !== undefined) closeSync(job.fd);
  }
});
`;

/** The thread's answer to a finish: a digest, or the error (with its errno code, such as ENOENT) that stopped it. */
interface Answer {
  id: number;
  md5?: string;
  error?: string;
  code?: string;
}

let thread: Worker | undefined;
const pending = new Map<number, { resolve: (md5: string) => void; reject: (error: Error) => void }>();
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
export type HashSource = { file: string } | { fd: number };

/** A digest under way of the bytes from `start`, as they are written. */
export function startMd5(source: HashSource, start: number) {
  const id = nextId++;
  const worker = hashThread();
  worker.postMessage({ op: 'open', id, start, ...source });
  let told = 0;
  let ended = false;
  return {
    /** `written` bytes from the start are in the file now (the count only grows). */
    advance(written: number): void {
      if (ended || written - told < ADVANCE_STEP) return;
      told = written;
      worker.postMessage({ op: 'advance', id, upTo: written });
    },
    /** The hex MD5 of the first `size` bytes; rejects if the file is shorter. */
    finish(size: number): Promise<string> {
      ended = true;
      if (thread !== worker)
        return Promise.reject(new Error('the hashing thread stopped while these bytes were written'));
      return new Promise((resolve, reject) => {
        // Held while a digest is awaited, so a process waiting on nothing else still gets it.
        if (pending.size === 0) worker.ref();
        pending.set(id, { resolve, reject });
        worker.postMessage({ op: 'finish', id, size });
      });
    },
    /** Forgets the job (its part failed); nothing after `finish`. */
    drop(): void {
      if (ended) return;
      ended = true;
      worker.postMessage({ op: 'drop', id });
    },
  };
}

/** The hex MD5 of a range of a file; rejects if the file is shorter. */
export function md5OfRange(range: HashSource & { start: number; size: number }): Promise<string> {
  const { start, size, ...source } = range;
  return startMd5(source as HashSource, start).finish(size);
}
