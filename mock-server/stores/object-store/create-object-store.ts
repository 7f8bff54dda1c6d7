import { EmbeddedObjectStore, type EmbeddedObjectStoreOptions } from './embedded-store.js';
import type { ObjectStore } from '../../domain/object-store.js';
import { S3ObjectStore, type S3ObjectStoreDeps, type S3ObjectStoreOptions } from './s3-store.js';

export type EmbeddedObjectStoreConfig = { kind: 'embedded' } & EmbeddedObjectStoreOptions;
export type S3ObjectStoreConfig = { kind: 's3' } & S3ObjectStoreOptions;
export type ObjectStoreConfig = EmbeddedObjectStoreConfig | S3ObjectStoreConfig;

/**
 * Builds the configured store. Only the embedded store serves part URLs itself; mount its router:
 *
 *   const store = createObjectStore(config);
 *   if (store.partReceiver) app.use('/storage', createStorageRouter(store.partReceiver));
 */
export function createObjectStore(config: EmbeddedObjectStoreConfig): EmbeddedObjectStore;
export function createObjectStore(config: S3ObjectStoreConfig, deps?: S3ObjectStoreDeps): S3ObjectStore;
export function createObjectStore(config: ObjectStoreConfig, deps?: S3ObjectStoreDeps): ObjectStore;
export function createObjectStore(config: ObjectStoreConfig, deps?: S3ObjectStoreDeps): ObjectStore {
  switch (config.kind) {
    case 'embedded': {
      const { kind: _kind, ...options } = config;
      return new EmbeddedObjectStore(options);
    }
    case 's3': {
      const { kind: _kind, ...options } = config;
      return new S3ObjectStore(options, deps);
    }
    default: {
      const kind: never = config;
      throw new Error(`Unknown object store kind ${JSON.stringify((kind as { kind?: unknown }).kind)}`);
    }
  }
}
