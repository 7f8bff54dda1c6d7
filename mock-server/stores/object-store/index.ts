export * from '../../domain/object-store.js';
export { EmbeddedObjectStore } from './embedded-store.js';
export type { EmbeddedObjectStoreOptions, PartRequestQuery, PutPartOptions } from './embedded-store.js';
export { EXPIRES_PARAM, PartUrlSigner, SIGNATURE_PARAM } from './part-url-signer.js';
export type { SignedPartRequest } from './part-url-signer.js';
export { mapS3Error, S3ObjectStore } from './s3-store.js';
export type { S3ObjectStoreDeps, S3ObjectStoreOptions, SendFn } from './s3-store.js';
export { createObjectStore } from './create-object-store.js';
export type {
  EmbeddedObjectStoreConfig,
  ObjectStoreConfig,
  S3ObjectStoreConfig,
} from './create-object-store.js';
