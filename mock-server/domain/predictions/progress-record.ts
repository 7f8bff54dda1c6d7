import type { SegmentationRow } from './prediction-record.js';

/** How long a prediction waits before it starts, and runs before it finishes. */
export interface Delays {
  startDelayMs: number;
  runDelayMs: number;
  /** Hold COMPLETED/FAILED until the prediction has been polled this many times. */
  completeAfterPolls?: number;
}

/** Where delays are set: the mock's defaults (subject ''), an organization's, one prediction's. */
export type DelayScope = 'defaults' | 'organization' | 'prediction';

export type ForcedOutcome = { status: 'FAILED'; error: string } | { status: 'COMPLETED' };

/** Who an outcome is forced on: the next predictions of an organization (in order), or one prediction. */
export type ForcedScope = 'organization' | 'prediction';

/** Everything the control plane decides about one run, read once when the run begins. */
export interface RunPlan extends Delays {
  forced?: ForcedOutcome;
}

/** An outcome ready to publish: the segmentation (its files written) or the failure. */
export type ReadyOutcome =
  { status: 'COMPLETED'; segmentation: SegmentationRow } | { status: 'FAILED'; error: string };

/** A ready outcome held back until the prediction's `needed`th poll. */
export interface PollHold {
  needed: number;
  outcome: ReadyOutcome;
}
