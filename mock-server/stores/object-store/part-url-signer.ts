import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

import { ObjectStoreError } from '../../domain/object-store.js';

/**
 * Presigned part URLs of the embedded store:
 *
 *   {storageUrl}/uploads/{uploadId}/parts/{partNumber}?expires={unix seconds}&signature={sig}
 *
 * `sig` = base64url(HMAC-SHA256(secret, "PUT\n{uploadId}\n{partNumber}\n{expires}")). The URL names
 * the upload and the part only; the storage key never appears. The part number is signed as the
 * text that appears in the path, so a URL edited to another part number no longer verifies.
 */
export const EXPIRES_PARAM = 'expires';
export const SIGNATURE_PARAM = 'signature';

export interface SignedPartRequest {
  method: string;
  uploadId: string;
  /** As it appears in the path. */
  partNumber: string;
  expires: number;
}

export class PartUrlSigner {
  private readonly secret: Buffer;

  /** Without a secret, a random one per process: URLs do not survive a restart. */
  constructor(secret?: string | Buffer) {
    this.secret = secret === undefined ? randomBytes(32) : Buffer.from(secret);
    if (this.secret.length === 0) throw new Error('signingSecret must not be empty');
  }

  sign(request: SignedPartRequest): string {
    const text = [
      request.method.toUpperCase(),
      request.uploadId,
      request.partNumber,
      String(request.expires),
    ].join('\n');
    return createHmac('sha256', this.secret).update(text).digest('base64url');
  }

  /** The query string, without `?`. */
  query(request: SignedPartRequest): string {
    return new URLSearchParams({
      [EXPIRES_PARAM]: String(request.expires),
      [SIGNATURE_PARAM]: this.sign(request),
    }).toString();
  }

  /**
   * Throws SignatureDoesNotMatch (403) when the signature is missing, malformed or wrong, and
   * AccessDenied "Request has expired" (403) when it is right but past its expiry. The signature
   * is checked first, so an edited `expires` is reported as tampering.
   */
  verify(
    request: Omit<SignedPartRequest, 'expires'>,
    query: { expires: unknown; signature: unknown },
    now: Date,
  ): void {
    const { expires, signature } = query;
    if (typeof expires !== 'string' || typeof signature !== 'string' || expires === '' || signature === '') {
      throw new ObjectStoreError(
        'AccessDenied',
        `Query-string authentication requires the "${EXPIRES_PARAM}" and "${SIGNATURE_PARAM}" parameters`,
      );
    }
    if (!/^\d{1,15}$/.test(expires)) {
      throw new ObjectStoreError('SignatureDoesNotMatch', signatureMismatchMessage);
    }
    const expected = Buffer.from(this.sign({ ...request, expires: Number(expires) }), 'utf8');
    const given = Buffer.from(signature, 'utf8');
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      throw new ObjectStoreError('SignatureDoesNotMatch', signatureMismatchMessage);
    }
    if (Math.floor(now.getTime() / 1000) > Number(expires)) {
      throw new ObjectStoreError('AccessDenied', 'Request has expired');
    }
  }
}

const signatureMismatchMessage =
  'The request signature we calculated does not match the signature you provided. Use the URL exactly as it was issued.';
