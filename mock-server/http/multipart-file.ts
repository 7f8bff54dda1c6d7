import { Busboy, type BusboyInstance } from '@fastify/busboy';
import { randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { IncomingMessage } from 'node:http';
import { storageFull } from '../domain/errors.js';

export type ReceivedFile = { name: string; path: string; size: number };
export type ReceiveFailure = { status: 413 | 422 | 507; detail: string; field?: string };

/**
 * Streams the `file` part of a multipart request to a temporary file, counting bytes as they pass:
 * memory stays flat whatever the size, and a file over the limit is cut off as soon as it passes it.
 *
 * The part is recognised by its field name alone. Parsers' default takes a part for a file only
 * when it has a filename or is application/octet-stream, so `file` sent as image/tiff without a
 * filename (curl's `-F 'file=<a.tif;type=image/tiff'`, some generated clients) became a text field
 * and the upload a 422 "Field required"; @fastify/busboy lets that rule be replaced.
 */
export function receiveFile(
  req: IncomingMessage,
  tempDir: string,
  maxBytes: number,
): Promise<ReceivedFile | ReceiveFailure> {
  return new Promise((resolve) => {
    let sawFile = false;
    let parser: BusboyInstance;
    let receiving: { target: string; writer: WriteStream } | undefined;
    let answer: ReceivedFile | ReceiveFailure | undefined;
    // The first outcome is the answer. Once it is a refusal, the file is nobody's: its writer is
    // closed and it is removed, now or when its part ends later (a body that breaks after its file
    // part, a client gone mid-file, whose part never ends). Else each such file stayed in the
    // data folder, and a client gone mid-file kept its descriptor open, for as long as the mock ran.
    const finish = (outcome: ReceivedFile | ReceiveFailure) => {
      answer ??= outcome;
      if (answer === outcome) resolve(outcome);
      if ('status' in answer && receiving) {
        receiving.writer.destroy();
        void rm(receiving.target, { force: true }).catch(() => undefined);
      }
    };
    try {
      parser = Busboy({
        headers: req.headers as { 'content-type': string },
        limits: { files: 1, fileSize: maxBytes, fields: 20, parts: 25 },
        isPartAFile: (field, contentType, filename) =>
          field === 'file' || filename !== undefined || contentType === 'application/octet-stream',
      });
    } catch (err) {
      finish({ status: 422, detail: `Malformed multipart body: ${(err as Error).message}` });
      return;
    }
    parser.on('file', (field, stream, filename) => {
      if (field !== 'file' || sawFile) {
        stream.resume();
        return;
      }
      sawFile = true;
      const target = path.join(tempDir, `${randomUUID()}.upload`);
      const writer = createWriteStream(target);
      receiving = { target, writer };
      let size = 0;
      let truncated = false;
      stream.on('data', (chunk: Buffer) => (size += chunk.length));
      stream.on('limit', () => (truncated = true));
      pipeline(stream, writer)
        .then(async () => {
          if (truncated) {
            await rm(target, { force: true });
            finish({ status: 413, detail: `File too large: the limit is ${maxBytes} bytes.` });
          } else {
            finish({ name: safeName(filename), path: target, size });
          }
        })
        .catch(async (err: Error) => {
          await rm(target, { force: true });
          // A full disk is not the client's doing: 507, as every other write that cannot be kept.
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') {
            stream.resume();
            finish({ status: 507, detail: storageFull().message });
          } else finish({ status: 422, detail: `The upload was interrupted: ${err.message}` });
        });
    });
    parser.on('error', (err: Error) =>
      finish({ status: 422, detail: `Malformed multipart body: ${err.message}` }),
    );
    parser.on('finish', () => {
      if (!sawFile)
        finish({
          status: 422,
          detail: "Field required: send the image in a multipart part named 'file'.",
          field: 'file',
        });
    });
    req.on('aborted', () =>
      finish({ status: 422, detail: 'The client closed the connection before the upload finished.' }),
    );
    req.pipe(parser);
  });
}

function safeName(filename: string | undefined): string {
  const base = path.basename(String(filename ?? '').replace(/\\/g, '/')).trim();
  return base || 'upload.tif';
}
