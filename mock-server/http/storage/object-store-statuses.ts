import type { ObjectStoreErrorCode } from '../../domain/object-store.js';

/** The HTTP status S3 answers each object-store error with (MinIO answers a full disk with 507 too). */
export const OBJECT_STORE_ERROR_STATUS: Readonly<Record<ObjectStoreErrorCode, number>> = {
  NoSuchUpload: 404,
  NoSuchKey: 404,
  InvalidPart: 400,
  InvalidPartOrder: 400,
  NoParts: 400,
  EntityTooSmall: 400,
  EntityTooLarge: 400,
  InvalidArgument: 400,
  BadDigest: 400,
  InvalidDigest: 400,
  IncompleteBody: 400,
  AccessDenied: 403,
  SignatureDoesNotMatch: 403,
  MethodNotAllowed: 405,
  OperationAborted: 409,
  InsufficientStorage: 507,
  InternalError: 500,
};
