import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import * as fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  type CompleteMultipartUploadCommandOutput,
  CreateMultipartUploadCommand,
  type CreateMultipartUploadCommandOutput,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  type DeleteObjectsCommandOutput,
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadObjectCommand,
  type HeadObjectCommandOutput,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  ListPartsCommand,
  type ListPartsCommandOutput,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';

import { DomainError } from '../../domain/errors.js';
import {
  type CompletedObject,
  type KnownUpload,
  type ListPartsOptions,
  type MultipartPlan,
  type ObjectStore,
  ObjectStoreError,
  type ObjectStoreErrorCode,
  OBJECT_STORE_ERROR_CODES,
  type PartSelection,
  type PutObjectOptions,
  type UploadedPart,
} from '../../domain/object-store.js';
import {
  checkObjectKey,
  checkPartSizes,
  matchSelection,
  multipartEtag,
  orderSelection,
  quoteEtag,
  unquoteEtag,
  validateExpiry,
  validatePlan,
} from './s3-rules.js';
import { LocalCopies } from './local-copies.js';
import { plannedParts, plannedPartSize } from './planned-parts.js';
import { noSuchKey, noSuchUpload } from './store-errors.js';

/*
 * The ObjectStore interface on an S3-compatible service (AWS S3, Ceph RGW, MinIO, ...). What it
 * needs across instances comes from the caller's record of the upload (`known`), never from this
 * process's memory; that, and what it answers where S3 services differ, is in README.md. Tested
 * against a real S3, Ceph's RADOS Gateway (s3-store.rgw.test.ts), and against a fake `send`
 * (s3-store.test.ts) for what only AWS does and for the exact commands sent.
 *
 * Differences from the embedded store a caller should know:
 * - A presigned S3 URL carries the object key in its path, so use opaque keys (e.g.
 *   `uploads/<uuid>`) if the key must not reveal anything.
 * - S3 itself requires every part but the last to be at least 5 MiB (EntityTooSmall at completion).
 * - PutObject needs a length: a stream source is first spooled to a temporary file.
 */

export interface S3ObjectStoreOptions {
  /** e.g. `http://127.0.0.1:9000` for MinIO; omitted for AWS. */
  endpoint?: string;
  region: string;
  bucket: string;
  /** Prepended to every key; a `/` is added when missing. */
  prefix?: string;
  /** Path-style URLs (`endpoint/bucket/key`), which MinIO needs. */
  forcePathStyle?: boolean;
  /** Omitted: the SDK's default provider chain (environment, profile, instance role, ...). */
  credentials?: S3ClientConfig['credentials'];
  /** Where stream sources are spooled before PutObject, and local copies kept; default: the OS temp folder. */
  tmpDir?: string;
  /**
   * A connection not opened in `connectTimeoutMs` (default 3 s), or a call that receives nothing
   * for `idleTimeoutMs` (default 5 s), fails, and is tried once more: a stalled service answers a
   * request 503 within about 10 s, as the state database's timeouts do, and the client's retry
   * tries it again.
   */
  connectTimeoutMs?: number;
  idleTimeoutMs?: number;
}

type SendFn = (command: object) => Promise<unknown>;

const MAX_ATTEMPTS = 2;

/** Errors of a service that did not answer, or answered that it cannot now (S3's 5xx). */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * The object store did not answer, or said it could not: the request fails with 503, nothing kept.
 * So does a bucket that is gone: the operator's to put right, nothing the client sent.
 */
function unavailable(error: unknown): DomainError | undefined {
  const { name, code, $metadata } = (error ?? {}) as {
    name?: unknown;
    code?: unknown;
    $metadata?: { httpStatusCode?: number };
  };
  const status = $metadata?.httpStatusCode;
  const noBucket = name === 'NoSuchBucket';
  const down =
    noBucket ||
    name === 'TimeoutError' ||
    (typeof code === 'string' && UNREACHABLE_CODES.has(code)) ||
    (status !== undefined && status >= 500);
  if (!down) return undefined;
  const what = noBucket
    ? 'its bucket does not exist'
    : status === undefined
      ? String(code ?? name)
      : `HTTP ${status}`;
  return new DomainError(
    'store_unavailable',
    `The object store is unavailable (${what}); try again shortly.`,
    1,
  );
}

/**
 * An object's bytes, read after the call answered its headers: a service that stops sending them
 * fails the read with the SDK's bare TimeoutError (after the idle timeout), one that drops the
 * connection with ECONNRESET. Either is the store unavailable, as for a call that got no answer;
 * a reader that stops early releases the connection.
 */
function unavailableMidBody(body: Readable): PassThrough {
  const bytes = new PassThrough();
  body.on('error', (error) => bytes.destroy(unavailable(error) ?? error));
  bytes.on('close', () => body.destroy());
  return body.pipe(bytes);
}

/** Characters an XML 1.0 document cannot carry, as S3's complete request is one. */
const NOT_IN_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

export class S3ObjectStore implements ObjectStore {
  readonly bucket: string;
  readonly prefix: string;
  readonly client: S3Client;
  private readonly send: SendFn;
  private readonly tmpDir: string;
  private readonly copies: LocalCopies;

  /** `deps.send` replaces the client's `send` for every command (tests inject a fake here); presigning still uses the client. */
  constructor(options: S3ObjectStoreOptions, deps: { send?: SendFn } = {}) {
    this.bucket = options.bucket;
    this.prefix =
      options.prefix === undefined || options.prefix === '' ? '' : options.prefix.replace(/\/*$/, '/');
    this.client = new S3Client({
      region: options.region,
      ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
      forcePathStyle: options.forcePathStyle ?? false,
      ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
      // Otherwise the SDK adds a CRC32 checksum of an empty body to presigned UploadPart URLs,
      // and every real PUT to them fails.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // The SDK's default is no timeout: a service that accepts the connection and then stalls
      // held every request that touched it until the client gave up.
      requestHandler: {
        connectionTimeout: options.connectTimeoutMs ?? 3_000,
        socketTimeout: options.idleTimeoutMs ?? 5_000,
      },
      maxAttempts: MAX_ATTEMPTS,
    });
    this.send = deps.send ?? ((command) => this.client.send(command as never));
    this.tmpDir = options.tmpDir ?? os.tmpdir();
    this.copies = new LocalCopies(this.tmpDir);
  }

  /**
   * Why the bucket cannot be used, when S3 says so (it does not exist, or these credentials may not
   * list it under the prefix); undefined when it can, or when S3 did not answer (it may be back
   * before a request comes). A listing under the prefix, as deleting an image's files sends, not
   * HeadBucket: S3 answers that 403 to a policy that grants listing only under a prefix.
   */
  async bucketProblem(): Promise<string | undefined> {
    try {
      await this.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix, MaxKeys: 1 }));
      return undefined;
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      const name = (error as { name?: unknown }).name;
      if (status === 404 || name === 'NoSuchBucket') return 'does not exist';
      if (status === 403 || status === 401)
        return `may not be used with these credentials (HTTP ${status} ${String(name)})`;
      return undefined;
    }
  }

  /** Downloaded once, then kept until forgotten (the start-up sweep empties the folder). */
  localFileOf(key: string): Promise<string> {
    return this.copies.fileOf(key, () => this.readObject(key));
  }

  forgetLocalFile(key: string): Promise<void> {
    return this.copies.forget(key);
  }

  /** Listing a bucket is no start-up's job: orphans there are for the bucket's lifecycle rules. */
  async sweepUnreferenced(): Promise<number> {
    return 0;
  }

  async createMultipartUpload(key: string, plan: MultipartPlan): Promise<{ uploadId: string }> {
    checkObjectKey(key);
    validatePlan(plan);
    const out = (await this.call(
      new CreateMultipartUploadCommand({ ...this.object(key), ContentType: 'application/octet-stream' }),
    )) as CreateMultipartUploadCommandOutput;
    if (!out.UploadId)
      throw new ObjectStoreError('InternalError', 'CreateMultipartUpload answered no UploadId');
    return { uploadId: out.UploadId };
  }

  /** With the plan known, the URL signs the part's length: S3 refuses a PUT of any other size. */
  async presignPart(
    uploadId: string,
    partNumber: number,
    expiresInSeconds: number,
    known: KnownUpload,
  ): Promise<string> {
    const limit = known.plan.partCount;
    if (!Number.isSafeInteger(partNumber) || partNumber < 1 || partNumber > limit) {
      throw new ObjectStoreError(
        'InvalidArgument',
        `Part number ${partNumber} is out of range: this upload has parts 1 to ${limit}`,
      );
    }
    validateExpiry(expiresInSeconds);
    const command = new UploadPartCommand({
      ...this.object(known.key),
      UploadId: uploadId,
      PartNumber: partNumber,
      ContentLength: plannedPartSize(known.plan, partNumber),
    });
    return getSignedUrl(this.client, command, { expiresIn: expiresInSeconds });
  }

  /** The selected parts as the plan sizes them, when both are given; else what ListParts says arrived. */
  async listParts(uploadId: string, { known, selection }: ListPartsOptions): Promise<UploadedPart[]> {
    if (selection?.length) return plannedParts(known.plan, selection);
    const parts: UploadedPart[] = [];
    let marker: string | undefined;
    do {
      const out = (await this.callOnUpload(
        uploadId,
        new ListPartsCommand({
          ...this.object(known.key),
          UploadId: uploadId,
          ...(marker === undefined ? {} : { PartNumberMarker: marker }),
        }),
      )) as ListPartsCommandOutput;
      for (const part of out.Parts ?? []) {
        if (part.PartNumber === undefined || part.ETag === undefined) continue;
        parts.push({ partNumber: part.PartNumber, etag: quoteEtag(part.ETag), size: part.Size ?? 0 });
      }
      marker = out.IsTruncated ? String(out.NextPartNumberMarker ?? '') || undefined : undefined;
    } while (marker !== undefined);
    return parts.sort((a, b) => a.partNumber - b.partNumber);
  }

  /**
   * With the parts listed and the plan known, the list is what S3 assembles (S3 checks each ETag
   * against the part it holds, InvalidPart otherwise) and the plan gives the sizes: no ListParts.
   * Without a list, ListParts says what arrived (the interface's "discovered from storage").
   */
  async completeMultipartUpload(
    uploadId: string,
    parts: PartSelection[] | undefined,
    known: KnownUpload,
  ): Promise<CompletedObject> {
    const { key } = known;
    let selected: UploadedPart[];
    if (parts?.length) {
      // S3 compares ETags exactly, where the embedded store takes one in either case (S3 writes its
      // hex in lower case): sent as S3 wrote it, an ETag in upper case is assembled by both.
      const listed = orderSelection(parts).map((part) => ({ ...part, etag: part.etag.toLowerCase() }));
      selected = plannedParts(known.plan, listed);
      // S3 refuses a list whose XML cannot hold an ETag (MalformedXML), naming no part; no such
      // ETag matches a part, so the refusal is the embedded store's, naming it.
      const unsendable = listed.find((part) => NOT_IN_XML.test(part.etag));
      if (unsendable !== undefined)
        throw await this.whyPartsRefused(
          uploadId,
          parts,
          known,
          new ObjectStoreError('InvalidPart', `Part ${unsendable.partNumber}: its ETag matches no part`, {
            partNumber: unsendable.partNumber,
          }),
        );
      const outside = listed.find((part) => !selected.some((s) => s.partNumber === part.partNumber));
      if (outside !== undefined)
        throw new ObjectStoreError(
          'InvalidPart',
          `Part ${outside.partNumber} is not in this upload's plan (parts 1 to ${known.plan.partCount})`,
          { partNumber: outside.partNumber },
        );
    } else {
      // Checked here first so that an upload with no parts, or a short part, is refused by name:
      // S3's own refusals of them name no part.
      selected = matchSelection(await this.listParts(uploadId, { known }), undefined);
      checkPartSizes(selected, known.plan.partSize);
    }
    let out: CompleteMultipartUploadCommandOutput;
    try {
      out = (await this.callOnUpload(
        uploadId,
        new CompleteMultipartUploadCommand({
          ...this.object(key),
          UploadId: uploadId,
          MultipartUpload: {
            Parts: selected.map((part) => ({ PartNumber: part.partNumber, ETag: part.etag })),
          },
        }),
      )) as CompleteMultipartUploadCommandOutput;
    } catch (error) {
      const code = error instanceof ObjectStoreError ? error.code : undefined;
      const done = code === 'NoSuchUpload' ? await this.completedBefore(key, selected) : undefined;
      if (done !== undefined) return done;
      if (parts?.length && code === 'InvalidPart')
        throw await this.whyPartsRefused(uploadId, parts, known, error as ObjectStoreError);
      throw error;
    }
    // RGW answers an empty ETag; the object's own is the same value AWS would have answered.
    const etag = out.ETag || (await this.objectEtag(key));
    return {
      key,
      size: selected.reduce((sum, part) => sum + part.size, 0),
      etag: quoteEtag(etag),
    };
  }

  /**
   * The service refused a listed complete with InvalidPart, which names no part (and on RGW has
   * no message): says which listed part is missing or has another ETag, or, when every listed part
   * is there as listed and others were uploaded too, that this service assembles no subset.
   */
  private async whyPartsRefused(
    uploadId: string,
    parts: PartSelection[],
    known: KnownUpload,
    refusal: ObjectStoreError,
  ): Promise<ObjectStoreError> {
    let uploaded: UploadedPart[];
    try {
      uploaded = await this.listParts(uploadId, { known });
    } catch {
      return refusal;
    }
    try {
      matchSelection(uploaded, parts);
    } catch (error) {
      return error instanceof ObjectStoreError ? error : refusal;
    }
    const listed = new Set(parts.map((part) => part.partNumber));
    const unlisted = uploaded.filter((part) => !listed.has(part.partNumber)).map((part) => part.partNumber);
    if (unlisted.length === 0) return refusal;
    return new ObjectStoreError(
      'InvalidPart',
      `This S3 service assembles no subset of an upload's parts (Ceph RGW refuses it; AWS S3 does not): part${unlisted.length === 1 ? '' : 's'} ${unlisted.join(', ')} ${unlisted.length === 1 ? 'was' : 'were'} uploaded but not listed. List every uploaded part, or send no list to complete with all of them; the upload stays open.`,
      { partNumber: unlisted[0], cause: refusal },
    );
  }

  /**
   * The SDK tries a complete again when its answer is lost (the connection dropped or went silent
   * after the service assembled the object), and the retry finds the upload gone: the object at
   * the key, of these parts' size and multipart ETag, is the first attempt's, and this complete's.
   */
  private async completedBefore(key: string, parts: UploadedPart[]): Promise<CompletedObject | undefined> {
    const head = (await this.call(new HeadObjectCommand(this.object(key)), key).catch(() => undefined)) as
      HeadObjectCommandOutput | undefined;
    const size = parts.reduce((sum, part) => sum + part.size, 0);
    const etag = multipartEtag(parts);
    if (
      etag === undefined ||
      head?.ContentLength !== size ||
      unquoteEtag(head.ETag ?? '').toLowerCase() !== etag
    )
      return undefined;
    return { key, size, etag: quoteEtag(etag) };
  }

  private async objectEtag(key: string): Promise<string> {
    const head = (await this.call(new HeadObjectCommand(this.object(key)), key)) as HeadObjectCommandOutput;
    return head.ETag ?? '';
  }

  async abortMultipartUpload(uploadId: string, known: KnownUpload): Promise<void> {
    await this.callOnUpload(
      uploadId,
      new AbortMultipartUploadCommand({ ...this.object(known.key), UploadId: uploadId }),
    );
  }

  async putObject(
    key: string,
    source: NodeJS.ReadableStream | string,
    options: PutObjectOptions = {},
  ): Promise<{ size: number }> {
    checkObjectKey(key);
    let file = typeof source === 'string' ? source : undefined;
    let spooled = false;
    if (file === undefined) {
      file = path.join(this.tmpDir, `s3-put-${randomBytes(8).toString('hex')}.tmp`);
      spooled = true;
      try {
        await pipeline(source as NodeJS.ReadableStream, createWriteStream(file, { flags: 'wx' }));
      } catch (error) {
        await fsp.rm(file, { force: true });
        throw error;
      }
    }
    try {
      const { size } = await fsp.stat(file);
      await this.call(
        new PutObjectCommand({
          ...this.object(key),
          Body: createReadStream(file),
          ContentLength: size,
        }),
      );
      if (options.move === true && !spooled) await fsp.rm(file, { force: true });
      return { size };
    } finally {
      if (spooled) await fsp.rm(file, { force: true });
    }
  }

  async readObject(key: string): Promise<NodeJS.ReadableStream> {
    checkObjectKey(key);
    const out = (await this.call(new GetObjectCommand(this.object(key)), key)) as GetObjectCommandOutput;
    if (out.Body === undefined)
      throw new ObjectStoreError('InternalError', `GetObject answered no body for ${key}`);
    return unavailableMidBody(out.Body as Readable);
  }

  async headObject(key: string): Promise<{ size: number } | null> {
    checkObjectKey(key);
    try {
      const out = (await this.call(new HeadObjectCommand(this.object(key)), key)) as HeadObjectCommandOutput;
      return { size: out.ContentLength ?? 0 };
    } catch (error) {
      if (error instanceof ObjectStoreError && error.code === 'NoSuchKey') return null;
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    return (await this.headObject(key)) !== null;
  }

  async deleteObject(key: string): Promise<void> {
    checkObjectKey(key);
    await this.call(new DeleteObjectCommand(this.object(key)), key);
  }

  async deletePrefix(prefix: string): Promise<number> {
    if (prefix === '')
      throw new ObjectStoreError('InvalidArgument', 'Refusing to delete with an empty prefix');
    let deleted = 0;
    let token: string | undefined;
    do {
      const page = (await this.call(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: this.prefix + prefix,
          ...(token === undefined ? {} : { ContinuationToken: token }),
        }),
      )) as ListObjectsV2CommandOutput;
      const keys = (page.Contents ?? []).flatMap((object) => (object.Key === undefined ? [] : [object.Key]));
      if (keys.length > 0) {
        const out = (await this.call(
          new DeleteObjectsCommand({
            Bucket: this.bucket,
            Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
          }),
        )) as DeleteObjectsCommandOutput;
        const failed = out.Errors ?? [];
        if (failed.length > 0) {
          const first = failed[0];
          throw new ObjectStoreError(
            'InternalError',
            `DeleteObjects failed for ${failed.length} object(s), first ${first.Key}: ${first.Code} ${first.Message}`,
          );
        }
        deleted += keys.length;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return deleted;
  }

  /** A command's bucket and key, the key under the prefix. */
  private object(key: string): { Bucket: string; Key: string } {
    return { Bucket: this.bucket, Key: this.prefix + key };
  }

  private async call(command: object, key?: string): Promise<unknown> {
    try {
      return await this.send(command);
    } catch (error) {
      throw unavailable(error) ?? mapS3Error(error, key);
    }
  }

  /** A call on an open upload: one that is gone is NoSuchUpload, whichever code the service used (RGW: NoSuchKey). */
  private async callOnUpload(uploadId: string, command: object): Promise<unknown> {
    try {
      return await this.call(command);
    } catch (error) {
      throw error instanceof ObjectStoreError && error.code === 'NoSuchKey'
        ? noSuchUpload(uploadId, error)
        : error;
    }
  }
}

/** S3's own text for a code, for services whose error bodies carry none (RGW). */
const STANDARD_MESSAGES: Partial<Record<string, string>> = {
  NoSuchUpload: 'The specified multipart upload does not exist',
  NoSuchKey: 'The specified key does not exist',
  InvalidPart: "One or more of the specified parts could not be found, or a part's ETag did not match",
  InvalidPartOrder: 'The list of parts was not in ascending order',
  EntityTooSmall: 'Your proposed upload is smaller than the minimum allowed size',
  EntityTooLarge: 'Your proposed upload exceeds the maximum allowed size',
  AccessDenied: 'Access Denied',
  SignatureDoesNotMatch: 'The request signature we calculated does not match the signature you provided',
  NoSuchBucket: 'The specified bucket does not exist',
};

const PASSED_THROUGH = new Set<string>(OBJECT_STORE_ERROR_CODES);

/** The SDK's errors carry S3's code as `name`; HEAD answers have no body, so only a 404. */
export function mapS3Error(error: unknown, key?: string): ObjectStoreError {
  if (error instanceof ObjectStoreError) return error;
  const name = (error as { name?: unknown } | undefined)?.name;
  const status = (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata
    ?.httpStatusCode;
  const message = (error as { message?: unknown } | undefined)?.message;
  // RGW sends an empty <Message>, which the SDK shows as "UnknownError".
  const text =
    typeof message === 'string' && message !== '' && message !== 'UnknownError'
      ? message
      : (STANDARD_MESSAGES[String(name)] ??
        `S3 answered ${String(name)} (HTTP ${String(status)}) with no message`);
  if (name === 'NotFound' || name === 'NoSuchKey' || (name === 'UnknownError' && status === 404)) {
    return key === undefined
      ? new ObjectStoreError('NoSuchKey', text, { cause: error })
      : noSuchKey(key, error);
  }
  if (typeof name === 'string' && PASSED_THROUGH.has(name)) {
    return new ObjectStoreError(name as ObjectStoreErrorCode, text, { cause: error });
  }
  return new ObjectStoreError('InternalError', `S3 request failed (${String(name)}): ${text}`, {
    cause: error,
  });
}
