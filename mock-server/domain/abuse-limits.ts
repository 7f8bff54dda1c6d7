import { DomainError } from './errors.js';
import type { StateStore } from './state.js';

/**
 * The limits a shared sandbox sets per organization so that one cannot exhaust it for the others
 * (the rate of requests per key is RequestRateLimit, below); 0 turns a limit off (the default: a
 * partner's laptop has nobody to protect). Each is counted in the state store, so it holds across
 * every instance sharing it.
 */
export interface OrganizationLimitSettings {
  /** Bytes of every image an organization keeps (failed and uploading included), declared sizes. */
  storedBytes: number;
  /** Resumable uploads an organization has open (created, neither completed nor aborted). */
  openUploads: number;
  /** Predictions of an organization SUBMITTED or STARTED at once. */
  concurrentPredictions: number;
}

/** One second: the window requests are counted in, and so the wait a refused request is told. */
const RATE_WINDOW_MS = 1000;
/** A prediction in flight ends within seconds on the mock's defaults: worth trying again after one. */
const PREDICTION_RETRY_SECONDS = 1;
/** An open upload ends when its client completes or aborts it, which the mock cannot foresee. */
const UPLOAD_RETRY_SECONDS = 5;

/**
 * The checks of the per-organization limits. Each runs inside the caller's transaction after it
 * took the organization's lock (`organizations.lock`), as the plan's caps do, so concurrent requests
 * on any instance are counted one at a time and the limit is exact.
 */
export class OrganizationLimits {
  constructor(
    private readonly state: StateStore,
    private readonly limits: OrganizationLimitSettings,
  ) {}

  /**
   * Refuses a new image of `size` bytes (0 while a single-request upload has not arrived: then only
   * an organization with no byte left is refused), and a new resumable upload past the open ones.
   */
  async assertRoomForImage(orgId: string, image: { size: number; resumable: boolean }): Promise<void> {
    const { storedBytes, openUploads } = this.limits;
    const countsUploads = image.resumable && openUploads > 0;
    if (!storedBytes && !countsUploads) return;
    const footprint = await this.state.images.footprintOf(orgId);
    if (storedBytes && footprint.bytes + Math.max(image.size, 1) > storedBytes) {
      throw new DomainError(
        'cap_reached',
        `Storage limit reached: this sandbox keeps at most ${storedBytes} bytes of images per organization, ` +
          `${footprint.bytes} are stored and this image has ${image.size || 'more'}. ` +
          'Delete images (failed and aborted uploads count until deleted) to free space.',
      );
    }
    if (countsUploads && footprint.openUploads >= openUploads) {
      throw new DomainError(
        'too_many',
        `Too many open uploads: this sandbox allows ${openUploads} resumable uploads open at once per organization ` +
          `and ${footprint.openUploads} are open. Complete or abort one, then try again.`,
        UPLOAD_RETRY_SECONDS,
      );
    }
  }

  /** Refuses a new prediction while the organization has as many in flight as the limit allows. */
  async assertPredictionSlot(orgId: string): Promise<void> {
    const limit = this.limits.concurrentPredictions;
    if (!limit) return;
    const inFlight = await this.state.predictions.inFlightCountOf(orgId);
    if (inFlight >= limit) {
      throw new DomainError(
        'too_many',
        `Too many predictions in flight: this sandbox runs at most ${limit} predictions per organization at once ` +
          `and ${inFlight} are SUBMITTED or STARTED. Try again once one has finished.`,
        PREDICTION_RETRY_SECONDS,
      );
    }
  }
}

/**
 * Requests per API key per second: a fixed one-second window counted in this instance's memory
 * (StateStore `rates`), so deciding costs no write. Instances behind one address each admit their
 * share, `ceil(perSecond / instances)`, of a key's requests: a balancer that spreads a key's
 * requests evenly (the sandbox's nginx, least_conn) admits about `perSecond` in all, and never more.
 * A fixed window lets a key send up to twice the limit across a window's edge; a sliding window
 * would not, at the cost of more memory per key.
 */
export class RequestRateLimit {
  /** What this instance admits of each key's requests per window. */
  private readonly share: number;

  constructor(
    private readonly state: Pick<StateStore, 'rates'>,
    private readonly perSecond: number,
    /** Instances the limit is split across (--rate-limit-instances). */
    instances = 1,
  ) {
    this.share = Math.ceil(perSecond / instances);
  }

  /** Counts one request of the key (by its id); throws `too_many` once the window's count is past this instance's share. */
  async admit(keyId: string): Promise<void> {
    if (!this.perSecond) return;
    const count = await this.state.rates.hit(keyId, RATE_WINDOW_MS);
    if (count > this.share) {
      throw new DomainError(
        'too_many',
        `Rate limit reached: this sandbox allows ${this.perSecond} requests per second per API key. ` +
          'Wait for the time Retry-After gives, then try again.',
        RATE_WINDOW_MS / 1000,
      );
    }
  }
}
