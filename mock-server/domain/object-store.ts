/**
 * The object store the domain talks to (the port). The embedded store (stores/object-store/
 * embedded-store.ts) is the default; an S3-compatible store (s3-store.ts) can replace it by
 * configuration; S3's rules both keep are in stores/object-store/s3-rules.ts. Nothing here knows
 * about HTTP: the status each error code is answered with is http/storage/object-store-statuses.ts.
 */

/** The shape of a resumable upload, fixed when the upload is opened. */
export interface MultipartPlan {
  totalSize: number;
  partSize: number;
  partCount: number;
}

export interface UploadedPart {
  partNumber: number;
  /** Quoted, as S3 returns it: `"<md5 hex>"`. */
  etag: string;
  size: number;
}

export interface PartSelection {
  partNumber: number;
  /** Quoted or unquoted. */
  etag: string;
}

/**
 * What the caller's own records hold of an upload it opened (the image row: the storage key, and
 * the plan its size and the part size give). A store with a durable record of its own (the embedded
 * store, on disk) does not need it; one without (S3: the part PUTs go to the bucket, and no
 * instance remembers the upload) needs it to act on the upload from any instance.
 */
export interface KnownUpload {
  key: string;
  plan: MultipartPlan;
}

/** The caller's record of the upload, and the parts it may let `listParts` answer without asking. */
export interface ListPartsOptions {
  known: KnownUpload;
  /**
   * The parts the caller is about to complete with. A store that learns of parts only at completion
   * (S3) answers these, sized by `known.plan` (its part URLs sign each part's length, so it holds
   * no part of another size), and leaves whether they arrived, with those ETags, to the completion.
   */
  selection?: PartSelection[];
}

export interface CompletedObject {
  key: string;
  size: number;
  /** S3's multipart ETag: quoted md5 of the concatenated part digests, then `-<part count>`. */
  etag: string;
}

export interface PutObjectOptions {
  /** When `source` is a file path: remove the file once stored (rename when possible). Default: copy. */
  move?: boolean;
}

/** The request of a part PUT, as the HTTP layer hands it to a store that serves part URLs itself. */
export interface PutPartOptions {
  /** The request's `Content-MD5` header (base64 of the 16-byte digest), checked as S3 does. */
  contentMd5?: string;
  /** The request's declared length, when known: refused up front when larger than a part. */
  contentLength?: number;
}

export interface PartRequestQuery {
  expires: unknown;
  signature: unknown;
}

/**
 * A store whose part URLs point at this mock (the embedded store): the HTTP layer mounts a router
 * for its part PUTs (http/storage/storage-router.ts). A remote store's URLs point at the store.
 */
export interface PartReceiver {
  /** Checks a part PUT's signature; throws SignatureDoesNotMatch or AccessDenied (both 403). */
  verifyPartRequest(method: string, uploadId: string, partNumber: string, query: PartRequestQuery): void;
  /** Streams one part in and answers its quoted MD5 ETag. */
  putPart(
    uploadId: string,
    partNumberText: string,
    body: NodeJS.ReadableStream,
    options?: PutPartOptions,
  ): Promise<{ etag: string; size: number }>;
}

/** What a data folder's rows still refer to, for the start-up sweep of the store's own files. */
export interface ReferencedByState {
  uploadIds: ReadonlySet<string>;
  /** Key prefixes, one per stored image (`objects/<uuid>/`). */
  keyPrefixes: ReadonlySet<string>;
  /**
   * What changed later (file-system time, ms) may be work in progress whose row is not committed
   * yet: this process's own, or another instance's on a shared folder. It stays.
   */
  changedBy: number;
}

export interface ObjectStore {
  /** Set when this store serves its part URLs itself; undefined when they point elsewhere. */
  readonly partReceiver?: PartReceiver;
  /**
   * A file on this machine holding the object's bytes, for decoders that read files: the embedded
   * store's own file, or a local copy of a remote object, made once and kept until `forgetLocalFile`.
   */
  localFileOf(key: string): Promise<string>;
  /** Removes the local copy `localFileOf` made of a remote object, if any. */
  forgetLocalFile(key: string): Promise<void>;
  /**
   * Start-up housekeeping after a crash: removes the store's staging files, open uploads and
   * stored objects no row refers to, where the store can list them cheaply (a remote store leaves
   * that to the bucket's lifecycle rules). Answers how many entries were removed.
   */
  sweepUnreferenced(referenced: ReferencedByState): Promise<number>;
  createMultipartUpload(key: string, plan: MultipartPlan): Promise<{ uploadId: string }>;
  /**
   * An absolute URL a client PUTs one part to. Never contains the storage key (embedded store).
   * `known` (here and below): the caller's record of the upload, which a store may need (KnownUpload).
   */
  presignPart(
    uploadId: string,
    partNumber: number,
    expiresInSeconds: number,
    known: KnownUpload,
  ): Promise<string>;
  /** Parts that arrived, in part-number order (but see ListPartsOptions.selection). */
  listParts(uploadId: string, options: ListPartsOptions): Promise<UploadedPart[]>;
  /**
   * Without `parts` (or with an empty list): every part that arrived, in part-number order. With
   * `parts`: exactly those, in part-number order, each ETag checked. A failure changes nothing.
   */
  completeMultipartUpload(
    uploadId: string,
    parts: PartSelection[] | undefined,
    known: KnownUpload,
  ): Promise<CompletedObject>;
  abortMultipartUpload(uploadId: string, known: KnownUpload): Promise<void>;
  putObject(
    key: string,
    source: NodeJS.ReadableStream | string,
    options?: PutObjectOptions,
  ): Promise<{ size: number }>;
  readObject(key: string): Promise<NodeJS.ReadableStream>;
  /** `null` when there is no such object. */
  headObject(key: string): Promise<{ size: number } | null>;
  exists(key: string): Promise<boolean>;
  /** Idempotent: deleting a missing object is not an error (as in S3). */
  deleteObject(key: string): Promise<void>;
  /** Deletes every object whose key starts with `prefix`; answers how many were deleted. */
  deletePrefix(prefix: string): Promise<number>;
}

/** S3's error codes where S3 has one; `NoParts` is ours (S3 answers MalformedXML). */
export const OBJECT_STORE_ERROR_CODES = [
  'NoSuchUpload',
  'NoSuchKey',
  'InvalidPart',
  'InvalidPartOrder',
  'NoParts',
  'EntityTooSmall',
  'EntityTooLarge',
  'InvalidArgument',
  'BadDigest',
  'InvalidDigest',
  'IncompleteBody',
  'AccessDenied',
  'SignatureDoesNotMatch',
  'MethodNotAllowed',
  /** A concurrent PUT of the same part finished first and took its place (S3's code for a conflicting operation). */
  'OperationAborted',
  /** The disk under the store is full. */
  'InsufficientStorage',
  'InternalError',
] as const;

export type ObjectStoreErrorCode = (typeof OBJECT_STORE_ERROR_CODES)[number];

export class ObjectStoreError extends Error {
  override readonly name = 'ObjectStoreError';
  readonly code: ObjectStoreErrorCode;
  readonly partNumber?: number;

  constructor(
    code: ObjectStoreErrorCode,
    message: string,
    options?: { partNumber?: number; cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options?.partNumber !== undefined) this.partNumber = options.partNumber;
  }
}
