/**
 * Outcomes held until a prediction's Nth poll (`complete_after_polls`) travel in the settings rows
 * (`held-outcome/<prediction id>`). A COMPLETED one carries its segmentation, whose files were
 * written when the run finished but which becomes a row only when a poll lets the hold go: a
 * snapshot carries, checks and puts back those files as it does a row's, or the prediction would
 * complete after a load on a segmentation whose exports have no outlines to read.
 */
import type { SegmentationRow } from '../predictions/prediction-record.js';
import type { PollHold } from '../predictions/progress-record.js';
import type { SettingRow } from './setting-rows.js';
import { HELD_OUTCOME, isCount, rowsEntryName, SnapshotRefused } from './snapshot-format.js';
import { checkFields, kindOf, segmentationOwnerProblem } from './snapshot-row-checks.js';
import type { SnapshotRows } from './snapshot-rows.js';

/** The segmentations the held outcomes of a state carry (one the mock wrote, so readable). */
export function heldSegmentations(settings: SettingRow[]): SegmentationRow[] {
  return settings.flatMap(({ key, value }) => {
    if (!key.startsWith(HELD_OUTCOME)) return [];
    const { outcome } = JSON.parse(value) as PollHold;
    return outcome.status === 'COMPLETED' ? [outcome.segmentation] : [];
  });
}

/**
 * Checks each held outcome of a snapshot being loaded as the publish will read it, and answers the
 * segmentations they carry: each a segmentation row of its own prediction, whose id no other
 * segmentation has.
 */
export function checkHeldOutcomes(rows: SnapshotRows): SegmentationRow[] {
  const ids = new Set(rows.segmentations.map((s) => s.id));
  const predictions = new Map(rows.predictions.map((p) => [p.id, p]));
  const held: SegmentationRow[] = [];
  rows.settings.forEach(({ key, value }, index) => {
    if (!key.startsWith(HELD_OUTCOME)) return;
    const where = `${rowsEntryName('settings')} line ${index + 1} (${key})`;
    const refuse = (what: string): never => {
      throw new SnapshotRefused(`${where}: ${what}`);
    };
    let hold: Record<string, unknown> | undefined;
    try {
      hold = JSON.parse(value) as Record<string, unknown>;
    } catch {
      refuse('the value is not JSON');
    }
    const outcome = hold?.outcome as Record<string, unknown> | undefined;
    if (kindOf(hold) !== 'object' || !isCount(hold?.needed) || kindOf(outcome) !== 'object')
      refuse('a held outcome needs a whole number of polls (needed) and an outcome');
    if (outcome?.status === 'FAILED' && typeof outcome.error === 'string') return;
    if (outcome?.status !== 'COMPLETED') refuse('the outcome must be FAILED with an error, or COMPLETED');
    checkFields('segmentations', `${where} segmentation`, outcome?.segmentation);
    const segmentation = outcome?.segmentation as SegmentationRow;
    if (`${HELD_OUTCOME}${segmentation.predictionId}` !== key)
      refuse(`the segmentation is of prediction ${JSON.stringify(segmentation.predictionId)}`);
    const problem = segmentationOwnerProblem(segmentation, predictions.get(segmentation.predictionId));
    if (problem) refuse(problem);
    if (ids.has(segmentation.id)) refuse(`segmentation id "${segmentation.id}" is there twice`);
    ids.add(segmentation.id);
    held.push(segmentation);
  });
  return held;
}
