import { randomBytes, randomUUID } from 'node:crypto';
import type { MockClock } from '../clock.js';
import { DomainError, ownRow } from '../errors.js';
import { underOrganizationLock, type Organization } from '../organizations.js';
import type { SegmentationRecord } from '../predictions/prediction-record.js';
import type { StateStore } from '../state.js';
import type { ShareRecord } from './share-record.js';

/** A live share and the segmentation it opens. */
type LiveShare = { share: ShareRecord; segmentation: SegmentationRecord };

/**
 * One live share per segmentation. Every change is one transaction under the organization's lock,
 * so twenty simultaneous creates on any instances see each other and make exactly one share,
 * concurrent page opens count exactly, and a revocation is committed before it is acknowledged.
 */
export class ShareService {
  constructor(
    private readonly state: StateStore,
    private readonly clock: MockClock,
    /** The segmentation with its outlines, for the public page. */
    private readonly loadSegmentation: (id: string) => Promise<SegmentationRecord | undefined>,
  ) {}

  /** The live share of the organization's segmentation, created if there is none; 404 for any other. */
  createOrGet(org: Organization, segmentationId: string): Promise<ShareRecord> {
    return underOrganizationLock(this.state, org.id, async () => {
      const segmentation = ownRow(await this.state.segmentations.get(segmentationId), org, 'Segmentation');
      const live = await this.state.shares.liveFor(segmentation.id);
      if (live) return live;
      const share: ShareRecord = {
        id: randomUUID(),
        organizationId: org.id,
        segmentationId: segmentation.id,
        token: randomBytes(32).toString('base64url'),
        viewCount: 0,
        lastViewedAt: null,
        createdAt: this.clock.nowIso(org.id),
        revokedAt: null,
      };
      await this.state.shares.put(share);
      return share;
    });
  }

  async get(org: Organization, id: string): Promise<ShareRecord> {
    return ownRow(await this.state.shares.get(id), org, 'Share');
  }

  /** Revoking twice keeps the first revocation time. */
  revoke(org: Organization, id: string): Promise<ShareRecord> {
    return underOrganizationLock(this.state, org.id, async () => {
      const share = await this.get(org, id);
      share.revokedAt ??= this.clock.nowIso(org.id);
      await this.state.shares.put(share);
      return share;
    });
  }

  /**
   * A public token's live share and its segmentation (none when unknown, revoked or deleted), and
   * the organization whose share the token is, revoked or not (none when never issued): whose
   * journal lists the visit.
   */
  async resolveToken(token: string): Promise<{ live?: LiveShare; organizationId?: string }> {
    const share = await this.state.shares.byToken(token);
    return { live: await this.liveOf(share), organizationId: share?.organizationId };
  }

  /** Opening a share's page: the token resolved, with the view counted (none when not live). */
  async openPage(token: string): Promise<{ live?: LiveShare; organizationId?: string }> {
    const opened = await this.resolveToken(token);
    // a revoke (or delete) may have answered since the token was resolved: the page then opens
    // nothing, as it would have after it
    if (opened.live && !(await this.recordView(opened.live.share)))
      return { organizationId: opened.organizationId };
    return opened;
  }

  private async liveOf(share: ShareRecord | undefined): Promise<LiveShare | undefined> {
    if (!share || share.revokedAt) return undefined;
    const segmentation = await this.loadSegmentation(share.segmentationId);
    return segmentation ? { share, segmentation } : undefined;
  }

  /**
   * Counts a view under the lock a revoke takes, answering false when the share is no longer live
   * there (revoked or deleted since it was resolved). On a full disk the page still opens, uncounted.
   */
  private async recordView(share: ShareRecord): Promise<boolean> {
    try {
      return await underOrganizationLock(this.state, share.organizationId, async () => {
        const current = await this.state.shares.get(share.id);
        if (!current || current.revokedAt) return false;
        current.viewCount++;
        current.lastViewedAt = this.clock.nowIso(current.organizationId);
        await this.state.shares.put(current);
        Object.assign(share, current);
        return true;
      });
    } catch (err) {
      if (!(err instanceof DomainError && err.kind === 'storage_full')) throw err;
      return true;
    }
  }
}
