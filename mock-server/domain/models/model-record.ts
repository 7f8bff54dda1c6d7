import type { ThresholdParams } from '../../engines/segmentation/threshold-segmenter.js';

/** How a model runs: the CPU threshold segmenter in a worker thread, or a remote HTTP worker (a GPU model). */
export type ModelEngine =
  | { kind: 'threshold'; params: ThresholdParams }
  | { kind: 'remote'; url: string; timeoutMs: number; params: Record<string, unknown> };

export interface ModelRecord {
  id: string;
  name: string;
  version: string;
  description: string;
  /** A shared base model, or a custom model of one organization. */
  scope: 'base' | 'custom';
  /** Owner of a custom model; undefined for base models. */
  organizationId?: string;
  engine: ModelEngine;
}
