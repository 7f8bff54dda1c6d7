import { isObject } from './exchange.js';
import type { ImageRecord } from './world.js';

/**
 * What `POST /upload/{id}/complete` with a `parts` list answers (openapi.yaml, completeUpload,
 * assumed): the list is read in part-number order whatever its order; every part listed must be a
 * part of the plan, PUT, with the ETag its PUT answered; none twice; and the parts listed must add
 * up to the exact size the image was opened with, which only the whole plan does (every part holds
 * at least one byte). A refusal is a 422 that changes nothing.
 */
export type ListedParts =
  | { kind: 'no list' }
  /** The plan is not known to the model (or an entry is malformed): nothing is predicted. */
  | { kind: 'unknown' }
  | { kind: 'refused'; why: string }
  | { kind: 'accepted' };

const unquoted = (etag: string) =>
  etag
    .trim()
    .replace(/^"(.*)"$/, '$1')
    .toLowerCase();

export function judgeListedParts(image: ImageRecord, sent: unknown): ListedParts {
  const parts = isObject(sent) && Array.isArray(sent.parts) ? sent.parts : [];
  if (parts.length === 0) return { kind: 'no list' };
  // Every PUT to the plan's URLs is seen: they were handed to this check alone.
  const plan = image.plan;
  if (!plan) return { kind: 'unknown' };
  const seen = new Set<number>();
  for (const part of parts) {
    if (!isObject(part) || !Number.isSafeInteger(part.part_number) || typeof part.etag !== 'string')
      return { kind: 'unknown' }; // the document's schema judges a malformed entry
    const number = part.part_number as number;
    if (seen.has(number)) return { kind: 'refused', why: `part ${number} listed twice` };
    seen.add(number);
    if (number > plan.partCount)
      return { kind: 'refused', why: `part ${number} is outside the plan of ${plan.partCount}` };
    const etag = image.partEtags.get(number);
    if (etag === undefined) return { kind: 'refused', why: `part ${number} was never PUT` };
    if (unquoted(etag) !== unquoted(part.etag))
      return { kind: 'refused', why: `part ${number} listed with an ETag its PUT did not answer` };
  }
  if (seen.size < plan.partCount)
    return {
      kind: 'refused',
      why: `${seen.size} of the plan's ${plan.partCount} parts listed: they do not add up to the size`,
    };
  return { kind: 'accepted' };
}
