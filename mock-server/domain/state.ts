import type { ApiKeyRecord } from './api-keys.js';
import type { ImageRecord, UploadStatus } from './images/image-record.js';
import type { ModelRecord } from './models/model-record.js';
import type { Organization, Plan } from './organization-record.js';
import type { PredictionRecord, PredictionStatus, SegmentationRow } from './predictions/prediction-record.js';
import type { ShareRecord } from './shares/share-record.js';

/**
 * All state of the mock, as the domain needs it (moto's "backend", behind a port): plain records
 * in and out, every read a fresh copy. The implementation is a transactional database
 * (stores/sqlite-state-store.ts); every method is synchronous, so a check and the change it guards
 * run with no other request in between, and `transaction` makes a use case's writes one commit.
 */
export interface StateStore {
  /** Runs `work` as one transaction: all its writes are committed together when it returns, or none. */
  transaction<T>(work: () => T): T;
  /** The organization a presented key belongs to: looked up by its hash, compared in constant time. */
  organizationForKey(key: string): Organization | undefined;
  readonly organizations: OrganizationTable;
  readonly usage: UsageTable;
  readonly models: ModelTable;
  readonly images: ImageTable;
  readonly predictions: PredictionTable;
  readonly segmentations: SegmentationTable;
  readonly shares: ShareTable;
  readonly settings: SettingsTable;
  /** Empties every table (a full reset). */
  clear(): void;
}

export interface OrganizationTable {
  get(id: string): Organization | undefined;
  all(): Organization[];
  insert(org: Organization): void;
  setPlan(id: string, plan: Plan): void;
  addKey(id: string, key: ApiKeyRecord): void;
  /** Removes the organization's key `keyId`; false when it has none by that id. */
  removeKey(id: string, keyId: string): boolean;
  keyTaken(hash: string): boolean;
}

/** Analyses counted per organization and calendar month ("2026-11"). */
export interface UsageTable {
  analyses(orgId: string, month: string): number;
  setAnalyses(orgId: string, month: string, count: number): void;
  clear(orgId: string): void;
}

export interface ModelTable {
  add(model: ModelRecord): void;
  get(id: string): ModelRecord | undefined;
  /** Base models first, then the organization's custom models, each by name. */
  listFor(org: Organization): ModelRecord[];
}

export interface ImageTable {
  get(id: string): ImageRecord | undefined;
  put(image: ImageRecord): void;
  delete(id: string): void;
  countOf(orgId: string): number;
  idsOf(orgId: string): string[];
  withStatus(status: UploadStatus): ImageRecord[];
  /** Every object-store key a row points at (for the start-up sweep). */
  storageKeys(): Set<string>;
  /** Every open resumable upload a row points at (for the start-up sweep). */
  multipartUploadIds(): Set<string>;
}

export interface PredictionTable {
  get(id: string): PredictionRecord | undefined;
  put(prediction: PredictionRecord): void;
  delete(id: string): void;
  /** A SUBMITTED or STARTED prediction of this image with this model, if any. */
  inFlightFor(orgId: string, imageId: string, modelId: string): PredictionRecord | undefined;
  withStatus(...statuses: PredictionStatus[]): PredictionRecord[];
  idsOfImage(imageId: string): string[];
  idsOf(orgId: string): string[];
}

export interface SegmentationTable {
  get(id: string): SegmentationRow | undefined;
  put(segmentation: SegmentationRow): void;
  delete(id: string): void;
  idsOfImage(imageId: string): string[];
  idsOf(orgId: string): string[];
  allIds(): Set<string>;
}

export interface ShareTable {
  get(id: string): ShareRecord | undefined;
  put(share: ShareRecord): void;
  delete(id: string): void;
  byToken(token: string): ShareRecord | undefined;
  liveFor(segmentationId: string): ShareRecord | undefined;
  idsOfSegmentation(segmentationId: string): string[];
  idsOf(orgId: string): string[];
}

export interface SettingsTable {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
}
