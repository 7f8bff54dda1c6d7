import type { ShareRecord } from '../../domain/shares/share-record.js';
import type { ApiSchemas } from '../api-schemas.js';

/** The interface's Share resource: the public link is built from the share base URL and the token. */
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
