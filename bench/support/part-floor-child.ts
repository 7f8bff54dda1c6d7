/**
 * The floor under a resumable upload: bare `node:http` doing only what a part's 200 requires, so
 * the uploads section can show what the mock's one-part-at-a-time figure is up against on this
 * machine. `PUT /<file>/<partNumber>?partSize=N` writes the body at its part's offset of one file
 * in PART_FLOOR_DIR as it arrives, takes its MD5 (the ETag, S3's rule) on a thread of its own as it
 * arrives, so hashing and receiving overlap as they do in the mock, and flushes the file
 * (fdatasync) before answering 200 with the ETag: no records, no routing, no auth, no slot claims.
 * Prints `{"url": ...}` like mock-child.
 */
import { open, type FileHandle } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { serveAsBenchChild } from './child-server.js';

/** MD5s by job id: `{id, chunk}` adds bytes, `{id}` alone answers `{id, md5}` and forgets the job. */
const HASHER = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const jobs = new Map();
parentPort.on('message', ({ id, chunk }) => {
  if (!jobs.has(id)) jobs.set(id, createHash('md5'));
  if (chunk) return void jobs.get(id).update(chunk);
  parentPort.postMessage({ id, md5: jobs.get(id).digest('hex') });
  jobs.delete(id);
});`;
const hasher = new Worker(HASHER, { eval: true });
const digests = new Map<number, (md5: string) => void>();
hasher.on('message', ({ id, md5 }: { id: number; md5: string }) => {
  digests.get(id)?.(md5);
  digests.delete(id);
});
let jobs = 0;

const dir = process.env.PART_FLOOR_DIR;
if (!dir) throw new Error('PART_FLOOR_DIR names the folder the parts are written into');

const files = new Map<string, Promise<FileHandle>>();
/** Created at the first part and kept open, as an upload's data file stays one file. */
const fileFor = (name: string) => {
  let handle = files.get(name);
  if (!handle) files.set(name, (handle = open(path.join(dir, path.basename(name)), 'w+')));
  return handle;
};

async function receivePart(req: http.IncomingMessage, file: FileHandle, offset: number): Promise<string> {
  const id = ++jobs;
  let at = offset;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    hasher.postMessage({ id, chunk }); // a copy: the thread hashes while the next chunk arrives
    for (let done = 0; done < chunk.length;) {
      const { bytesWritten } = await file.write(chunk, done, chunk.length - done, at);
      done += bytesWritten;
      at += bytesWritten;
    }
  }
  const md5 = new Promise<string>((resolve) => digests.set(id, resolve));
  hasher.postMessage({ id });
  const [digest] = await Promise.all([md5, file.datasync()]);
  return digest;
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://floor');
  const [, name, partText] = url.pathname.split('/');
  const partNumber = Number(partText);
  const partSize = Number(url.searchParams.get('partSize'));
  if (req.method !== 'PUT' || !name || !(partNumber >= 1) || !(partSize > 0)) {
    res.writeHead(404).end();
    return;
  }
  fileFor(name)
    .then((file) => receivePart(req, file, (partNumber - 1) * partSize))
    .then(
      (md5) => res.writeHead(200, { etag: `"${md5}"`, 'content-length': 0 }).end(),
      (err: Error) => res.writeHead(500).end(err.message),
    );
});
hasher.unref();
await serveAsBenchChild(server);
