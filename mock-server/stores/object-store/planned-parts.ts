import type { MultipartPlan, PartSelection, UploadedPart } from '../../domain/object-store.js';
import { quoteEtag } from './s3-rules.js';

/** The size part `partNumber` has under the plan: the part size, and what is left for the last. */
export function plannedPartSize(plan: MultipartPlan, partNumber: number): number {
  return partNumber < plan.partCount ? plan.partSize : plan.totalSize - (plan.partCount - 1) * plan.partSize;
}

/**
 * The selected parts that the plan has (numbers 1 to partCount), with the client's ETags and the
 * plan's sizes, in part-number order. A store whose part URLs sign each part's length holds no
 * part of another size, so these are the sizes it will assemble.
 */
export function plannedParts(plan: MultipartPlan, selection: readonly PartSelection[]): UploadedPart[] {
  return selection
    .filter(
      (part) =>
        Number.isSafeInteger(part.partNumber) && part.partNumber >= 1 && part.partNumber <= plan.partCount,
    )
    .map((part) => ({
      partNumber: part.partNumber,
      etag: quoteEtag(part.etag),
      size: plannedPartSize(plan, part.partNumber),
    }))
    .sort((a, b) => a.partNumber - b.partNumber);
}
