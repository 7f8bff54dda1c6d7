import * as fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { createObjectStore, type ObjectStoreConfig } from './create-object-store.js';
import { EmbeddedObjectStore } from './embedded-store.js';
import { S3ObjectStore } from './s3-store.js';

describe('createObjectStore', () => {
  it('builds the embedded store', async () => {
    const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'factory-'));
    try {
      const store = createObjectStore({
        kind: 'embedded',
        dataDir,
        storageUrl: 'http://127.0.0.1:1/storage',
      });
      expect(store).toBeInstanceOf(EmbeddedObjectStore);
      expect(store.dataDir).toBe(dataDir);
    } finally {
      await fsp.rm(dataDir, { recursive: true, force: true });
    }
  });

  it('builds the S3 store with its bucket and prefix', () => {
    const store = createObjectStore({ kind: 's3', region: 'eu-west-1', bucket: 'b', prefix: 'p' });
    expect(store).toBeInstanceOf(S3ObjectStore);
    expect(store.bucket).toBe('b');
    expect(store.prefix).toBe('p/');
  });

  it('refuses an unknown kind', () => {
    expect(() => createObjectStore({ kind: 'gcs' } as unknown as ObjectStoreConfig)).toThrow(
      /Unknown object store kind "gcs"/,
    );
  });
});
