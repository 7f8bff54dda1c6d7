import { DomainError, notFound } from '../domain/errors.js';
import type { ImageRecord } from '../domain/images/image-record.js';
import type { Organization } from '../domain/organizations.js';
import type { ModelRecord } from '../domain/models/model-record.js';
import type { PredictionRecord } from '../domain/predictions/prediction-record.js';
import type { ShareRecord } from '../domain/shares/share-record.js';
import { rowsOf, type StateStore } from '../domain/state.js';

const DEFAULT_LIMIT = 200;
const MAX_DASHBOARD_IMAGES = 1000;

/** An image with its predictions (newest first), each with the shares of its segmentation. */
export interface DashboardImage {
  image: ImageRecord;
  predictions: Array<{ prediction: PredictionRecord; shares: ShareRecord[] }>;
}

/**
 * Reads the dashboard (/__mock/ui) needs and no other endpoint gives: every organization's images
 * with their predictions and shares, an image's thumbnail, an organization's models. Read from the
 * state directly, so watching never counts as a poll of a prediction (`complete_after_polls`).
 */
export class DashboardReads {
  constructor(
    private readonly state: Pick<
      StateStore,
      'organizations' | 'images' | 'predictions' | 'shares' | 'models' | 'segmentations'
    >,
  ) {}

  /** The newest images first, of one organization or all; `limit` as the query gave it (a string). */
  async images(orgId: string | undefined, limit: unknown): Promise<DashboardImage[]> {
    if (orgId !== undefined && !(await this.state.organizations.get(orgId))) throw notFound('Organization');
    const count = limitOf(limit);
    if (count === undefined)
      throw new DomainError(
        'invalid_input',
        `limit: '${String(limit)}' is not an integer from 1 to ${MAX_DASHBOARD_IMAGES}`,
      );
    const orgIds = orgId ? [orgId] : (await this.state.organizations.all()).map((o) => o.id);
    const images: ImageRecord[] = [];
    for (const id of orgIds)
      await rowsOf(await this.state.images.idsOf(id), (i) => this.state.images.get(i), images);
    const newest = images
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id))
      .slice(0, count);
    const out: DashboardImage[] = [];
    for (const image of newest) out.push({ image, predictions: await this.predictionsOf(image) });
    return out;
  }

  async thumbnailPath(imageId: string): Promise<string> {
    const image = await this.state.images.get(imageId);
    if (!image) throw notFound('Image');
    if (!image.derived) throw notFound('Thumbnail');
    return image.derived.thumbnailPath;
  }

  /** The organization a segmentation belongs to, for the dashboard's downloads. */
  async segmentationOwner(segmentationId: string): Promise<Organization> {
    const segmentation = await this.state.segmentations.get(segmentationId);
    const org = segmentation && (await this.state.organizations.get(segmentation.organizationId));
    if (!org) throw notFound('Segmentation');
    return org;
  }

  async models(orgId: string): Promise<ModelRecord[]> {
    const org = await this.state.organizations.get(orgId);
    if (!org) throw notFound('Organization');
    return this.state.models.listFor(org);
  }

  private async predictionsOf(image: ImageRecord): Promise<DashboardImage['predictions']> {
    const ids = await this.state.predictions.idsOfImage(image.id);
    const predictions = await rowsOf(ids, (id) => this.state.predictions.get(id));
    predictions.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    const out: DashboardImage['predictions'] = [];
    for (const prediction of predictions) {
      const { segmentationId } = prediction;
      const shareIds = segmentationId ? await this.state.shares.idsOfSegmentation(segmentationId) : [];
      out.push({ prediction, shares: await rowsOf(shareIds, (id) => this.state.shares.get(id)) });
    }
    return out;
  }
}

function limitOf(raw: unknown): number | undefined {
  if (raw === undefined) return DEFAULT_LIMIT;
  const n = Number(raw);
  return typeof raw === 'string' && /^\d+$/.test(raw) && n >= 1 && n <= MAX_DASHBOARD_IMAGES ? n : undefined;
}
