import type { RgbPixels } from './png.js';

/**
 * The state the oracle keeps, per organization: what earlier answers established. A value the
 * model cannot follow (another client's effect, a fault, a setting changed behind the interface's
 * back) is marked unknown, and nothing is predicted from it.
 */
export type UploadStatus = 'uploading' | 'processing' | 'ready' | 'failed';

/** An organization's counters, known exactly only for one made here with a known plan. */
export interface Counters {
  storageCap: number;
  analysisCap: number;
  images: number;
  analyses: number;
}

export interface Organization {
  /** How the oracle names it: the target's key role (main, other, tiny) or the control plane's id. */
  ref: string;
  /** Counters, when no one else can have moved them (an organization this check created). */
  counters?: Counters;
  /** Something the model cannot follow reached it (a fault, a plan or usage set, a reset). */
  opaque: boolean;
  /** Requests with its key still waiting for an answer: a counter read meanwhile is not predicted. */
  pending: number;
  /** The models GET /models listed, in order, and their fields. */
  models?: Array<{ id: string; name: string; kind: string }>;
  /** Its custom models, when every one is known: an organization made here, and those added to it since. */
  customModels?: Array<{ id: string; name: string }>;
  /** A key of it was revoked: its other keys are still its own (rotation). */
  keyRevoked?: boolean;
  /** The polls the control plane holds its next predictions' outcomes for (`complete_after_polls`), when known. */
  heldPolls?: number;
}

export interface ImageRecord {
  id: string;
  org: string;
  name?: string;
  size?: number;
  /** The shape its conversion gives, where the model read the file's layout (a single-request upload's TIFF). */
  shape?: number[];
  /** null: moved on its own since the model last knew (conversion running). */
  status: UploadStatus | null;
  deleted: boolean;
  /** Presigned part URLs handed out, and whether the upload was since closed (completed or aborted). */
  partUrls: string[];
  /** The plan's upload_id, when it gave one. */
  uploadId?: string;
  closedBy?: 'complete' | 'abort';
  /** The reason the first answer that showed it failed gave: failed is a last state, so its reason stays. */
  uploadError?: string;
  /** The plan's part size and number of parts, when the plan handed out was well formed. */
  plan?: { partSize: number; partCount: number };
  /** The parts a PUT was answered 200 for (in storage), whatever its answer's headers. */
  partsStored?: Set<number>;
  /** The ETag each part's last accepted PUT answered, by part number. */
  partEtags: Map<number, string>;
  /** The bytes each part's last accepted PUT sent, by part number (when the client told them). */
  partSizes: Map<number, number>;
  /** What the target's clock read while the plan was handed out, when the model knew its clock. */
  planIssued?: { from: number; to: number };
  /** When the request for the plan went (the client's clock), and how many clock moves had been seen by then. */
  planAsked?: { at: number; clockMoves: number };
}

export interface PredictionRecord {
  id: string;
  org: string;
  imageId: string;
  modelId: string;
  outcome?: 'COMPLETED' | 'FAILED';
  /** The poll that publishes its outcome, when the control plane's hold on it is known. */
  heldPolls?: number;
  /** Polls of it answered 200 so far. */
  polls?: number;
  /** When the first poll that read it STARTED was answered (the client's clock). */
  startedReadAt?: number;
  segmentationId?: string;
  cellCount?: number;
}

export interface SegmentationRecord {
  id: string;
  org: string;
  imageId: string;
  modelId: string;
  predictionId: string;
  cellCount: number;
  /** roi_id by roi_index, as the first export that named them said. */
  roiIds?: Map<number, string>;
  /** Feature names (`name`) by roi_id, from the GeoJSON. */
  roiNames?: Map<string, string>;
  /** The overlay's width and height drawn at full size (asked without max_size). */
  overlaySize?: { width: number; height: number };
  /** Headers of the first 200 of each export URL, for the repeated reads. */
  exportHeaders: Map<string, Record<string, string>>;
  /** Overlays decoded so far, to compare one drawn with other options against. */
  overlays?: DrawnOverlay[];
}

/** An overlay as drawn with its options (outline_color upper case, defaults filled in). */
export interface DrawnOverlay {
  outline: string;
  fill: number;
  /** The max_size asked, as sent ('' for none): only overlays of one size are compared. */
  maxSize: string;
  pixels: RgbPixels;
}

export interface ShareRecord {
  id: string;
  org: string;
  segmentationId: string;
  url: string | null;
  /** Opens of the page the oracle saw answered 200 since the share was created. */
  views: number;
  /** When the last of them was sent, and when its answer arrived (the client's clock). */
  lastViewSentAt?: number;
  lastViewAnsweredAt?: number;
  /** The last_viewed_at a read gave after `views` opens, and when the last of those opens was answered. */
  lastViewedRead?: { views: number; value: string; viewAnsweredAt: number };
  revoked: boolean;
}

/** A 404's answer with the asked id taken out, to compare one organization's with a missing id's. */
export interface NotFoundAnswer {
  body: string;
  contentType: string;
  headerNames: string;
  id: string;
}

export interface World {
  /** The organization of each key the oracle knows; a key it does not know is not judged. */
  keys: Map<string, string>;
  /** Each key by the id the control plane names it by (`key_…`), where an answer gave both. */
  keyIds?: Map<string, string>;
  /** Keys revoked through the control plane: each answers 401 from then on. */
  revokedKeys?: Set<string>;
  organizations: Map<string, Organization>;
  images: Map<string, ImageRecord>;
  predictions: Map<string, PredictionRecord>;
  segmentations: Map<string, SegmentationRecord>;
  shares: Map<string, ShareRecord>;
  /** Per operation: a 404 for a never-seen id and one for another organization's id. */
  notFound: Map<string, { missing?: NotFoundAnswer; foreign?: NotFoundAnswer; compared?: boolean }>;
  /** The header names and compared values of the first answer to each request (method, URL, status, key). */
  firstAnswers: Map<string, { names: string[]; values: Record<string, string | null> }>;
  /** Each strong ETag an export came with: the digest of its bytes, by export URL. */
  exportTags: Map<string, Map<string, string>>;
  /**
   * The target's clock less the client's, as the last answer of the mock's clock bounds it (its
   * `now` less the client's time when the answer came, and when the request went).
   */
  targetClock?: { minusReceived: number; minusSent: number };
  /** Answers of the control plane that may have moved a clock (set, reset, a snapshot loaded). */
  clockMoves: number;
  /** Origins an answer allowed (CORS): their preflights are judged even when one answers without CORS headers. */
  corsOrigins?: Set<string>;
  /** Each host (URL origin) and page origin pair an answer allowed: every later answer of that host allows that origin. */
  corsHosts?: Set<string>;
  /** The path the target is mounted under (`/cellseg` of `https://gw/cellseg`), taken off a URL's path before its route is read. */
  basePath?: string;
}

export function newWorld(): World {
  return {
    keys: new Map(),
    organizations: new Map(),
    images: new Map(),
    predictions: new Map(),
    segmentations: new Map(),
    shares: new Map(),
    notFound: new Map(),
    firstAnswers: new Map(),
    exportTags: new Map(),
    clockMoves: 0,
  };
}

export function organization(world: World, ref: string): Organization {
  let org = world.organizations.get(ref);
  if (!org) {
    org = { ref, opaque: false, pending: 0 };
    world.organizations.set(ref, org);
  }
  return org;
}

/** Deleting an image deletes what was derived from it: its predictions, segmentations and shares. */
export const imageGone = (world: World, imageId: string): boolean =>
  world.images.get(imageId)?.deleted ?? false;

export const segmentationGone = (world: World, s: SegmentationRecord): boolean => imageGone(world, s.imageId);

export const shareGone = (world: World, s: ShareRecord): boolean => {
  const segmentation = world.segmentations.get(s.segmentationId);
  return segmentation ? segmentationGone(world, segmentation) : false;
};

/** Every id the model has seen, of any kind: a "new" id must be none of them. */
export function knownIds(world: World): Set<string> {
  return new Set([
    ...world.images.keys(),
    ...world.predictions.keys(),
    ...world.segmentations.keys(),
    ...world.shares.keys(),
  ]);
}
