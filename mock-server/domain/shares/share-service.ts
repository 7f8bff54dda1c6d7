import { randomBytes, randomUUID } from 'node:crypto';
import type { MockClock } from '../clock.js';
import { notFound } from '../errors.js';
import type { Organization } from '../organizations.js';
import type { SegmentationRecord } from '../predictions/prediction-record.js';
import type { MockState } from '../state.js';
import type { ShareRecord } from './share-record.js';

/**
 * One live share per segmentation. Every method is synchronous, so twenty simultaneous creates see
 * each other and make exactly one share, and concurrent page opens count exactly.
 */
export class ShareService {
  constructor(
    private readonly state: MockState,
    private readonly clock: MockClock,
  ) {}

  /** The live share of the segmentation, created if there is none. */
  createOrGet(org: Organization, segmentation: SegmentationRecord): ShareRecord {
    const live = [...this.state.shares.values()].find(
      (s) => s.segmentationId === segmentation.id && !s.revokedAt,
    );
    if (live) return live;
    const share: ShareRecord = {
      id: randomUUID(),
      organizationId: org.id,
      segmentationId: segmentation.id,
      token: randomBytes(32).toString('base64url'),
      viewCount: 0,
      lastViewedAt: null,
      createdAt: this.clock.nowIso(),
      revokedAt: null,
    };
    this.state.shares.set(share.id, share);
    this.state.shareTokens.set(share.token, share.id);
    return share;
  }

  get(org: Organization, id: string): ShareRecord {
    const share = this.state.shares.get(id);
    if (!share || share.organizationId !== org.id) throw notFound('Share');
    return share;
  }

  /** Revoking twice keeps the first revocation time. */
  revoke(org: Organization, id: string): ShareRecord {
    const share = this.get(org, id);
    share.revokedAt ??= this.clock.nowIso();
    return share;
  }

  /** A live share and its segmentation for a public token, or undefined (unknown or revoked). */
  resolveToken(token: string): { share: ShareRecord; segmentation: SegmentationRecord } | undefined {
    const id = this.state.shareTokens.get(token);
    const share = id === undefined ? undefined : this.state.shares.get(id);
    if (!share || share.revokedAt) return undefined;
    const segmentation = this.state.segmentations.get(share.segmentationId);
    return segmentation ? { share, segmentation } : undefined;
  }

  recordView(share: ShareRecord): void {
    share.viewCount++;
    share.lastViewedAt = this.clock.nowIso();
  }
}
