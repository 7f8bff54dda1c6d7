import type { ImageRecord } from './images/image-record.js';
import { ModelRegistry } from './models/model-registry.js';
import type { Organization } from './organizations.js';
import type { PredictionRecord, SegmentationRecord } from './predictions/prediction-record.js';
import type { ShareRecord } from './shares/share-record.js';

/**
 * All state of the mock, in memory, as plain records (moto's "backend"). Services in this folder
 * change it; the HTTP layer only reads what services return.
 */
export class MockState {
  readonly organizations = new Map<string, Organization>();
  /** API key -> organization id. */
  readonly apiKeys = new Map<string, string>();
  readonly models = new ModelRegistry();
  readonly images = new Map<string, ImageRecord>();
  readonly predictions = new Map<string, PredictionRecord>();
  readonly segmentations = new Map<string, SegmentationRecord>();
  readonly shares = new Map<string, ShareRecord>();
  /** Share token -> share id. */
  readonly shareTokens = new Map<string, string>();

  organizationForKey(key: string): Organization | undefined {
    const orgId = this.apiKeys.get(key);
    return orgId === undefined ? undefined : this.organizations.get(orgId);
  }

  imagesOf(orgId: string): ImageRecord[] {
    return [...this.images.values()].filter((i) => i.organizationId === orgId);
  }

  clear(): void {
    this.organizations.clear();
    this.apiKeys.clear();
    this.models.clear();
    this.images.clear();
    this.predictions.clear();
    this.segmentations.clear();
    this.shares.clear();
    this.shareTokens.clear();
  }
}
