/**
 * A second process on a shared data folder, for the embedded store's tests
 * (mock-server/stores/object-store/shared-folder.test.ts): forked with tsx's loader, it opens its
 * own EmbeddedObjectStore on the folder given as argv[2] and runs what the parent sends, answering
 * each command with `{ ok, value }` or `{ ok: false, code }`.
 */
import { Readable } from 'node:stream';
import { EmbeddedObjectStore } from '../../mock-server/stores/object-store/embedded-store.js';
import { FolderLocks } from '../../mock-server/stores/object-store/folder-lock.js';

export type StoreCommand =
  | { op: 'putPart'; uploadId: string; partNumber: number; bytes: string }
  | { op: 'complete'; uploadId: string }
  | { op: 'abort'; uploadId: string }
  | { op: 'listParts'; uploadId: string }
  /** Takes the lock file and holds it until `release`; answers once held. */
  | { op: 'hold'; file: string; staleMs?: number }
  | { op: 'release' };

const store = new EmbeddedObjectStore({ dataDir: process.argv[2], storageUrl: 'http://127.0.0.1:1/storage' });
let release: (() => void) | undefined;

async function run(command: StoreCommand): Promise<unknown> {
  switch (command.op) {
    case 'putPart':
      return store.partReceiver.putPart(
        command.uploadId,
        String(command.partNumber),
        Readable.from([Buffer.from(command.bytes, 'base64')]),
      );
    case 'complete':
      return store.completeMultipartUpload(command.uploadId);
    case 'abort':
      return store.abortMultipartUpload(command.uploadId);
    case 'listParts':
      return store.listParts(command.uploadId);
    case 'hold': {
      const held = new Promise<void>((resolve) => {
        void new FolderLocks({ staleMs: command.staleMs }).run(
          'held',
          command.file,
          () => {
            resolve();
            return new Promise<void>((done) => (release = done));
          },
          () => new Error('gone'),
        );
      });
      await held;
      return 'held';
    }
    case 'release':
      release?.();
      return 'released';
  }
}

process.on('message', (message: { seq: number; command: StoreCommand }) => {
  run(message.command).then(
    (value) => process.send!({ seq: message.seq, ok: true, value }),
    (error: { code?: string; message?: string }) =>
      process.send!({ seq: message.seq, ok: false, code: error.code ?? error.message }),
  );
});
process.send!({ seq: 0, ok: true, value: 'ready' });
