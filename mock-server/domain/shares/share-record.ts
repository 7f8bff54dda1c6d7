import type { ApiSchemas } from '../../http/api-schemas.js';
export interface ShareRecord {
  id: string;
  organizationId: string;
  segmentationId: string;
  /** 256 bits from the CSPRNG, base64url: the only secret in the public link. */
  token: string;
  viewCount: number;
  lastViewedAt: string | null;
  createdAt: string;
  revokedAt: string | null;
}

export function toShareResource(share: ShareRecord, shareBaseUrl: string): ApiSchemas['Share'] {
  return {
    id: share.id,
    segmentation_id: share.segmentationId,
    access: 'anyone_with_link' as const,
    role: 'viewer' as const,
    url: `${shareBaseUrl}/share/${share.token}`,
    view_count: share.viewCount,
    last_viewed_at: share.lastViewedAt,
    created_at: share.createdAt,
    revoked_at: share.revokedAt,
  };
}
