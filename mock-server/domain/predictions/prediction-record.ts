import type { SegmentationResult } from '../../engines/segmentation/types.js';

export type PredictionStatus = 'SUBMITTED' | 'STARTED' | 'COMPLETED' | 'FAILED';

export interface PredictionRecord {
  id: string;
  organizationId: string;
  imageId: string;
  modelId: string;
  status: PredictionStatus;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  segmentationId: string | null;
  cellCount: number | null;
  error: string | null;
  /** Times a run of this prediction was started; a run cut short by a stop is redone at most once. */
  runAttempts: number;
}

/** What a completed prediction produced, as stored: the outlines stay in the segmentation's own file. */
export interface SegmentationRow {
  id: string;
  organizationId: string;
  predictionId: string;
  imageId: string;
  imageName: string;
  modelId: string;
  modelName: string;
  /** e.g. "mock-threshold/1.0.0": which engine produced it. */
  source: string;
  cellCount: number;
  /** One UUID per object, stable for the life of the segmentation. */
  roiIds: string[];
  /** Whether a copy of the image's preview was kept for the overlay and the share page. */
  hasPreview: boolean;
  createdAt: string;
}

/** A segmentation with its outlines and the path of its preview copy, as the exports need it. */
export interface SegmentationRecord extends SegmentationRow {
  result: SegmentationResult;
  previewPath: string | null;
}
