import { isObject } from './exchange.js';
import type { ImageRecord } from './world.js';

/**
 * What `POST /upload/{id}/complete` with a `parts` list answers (openapi.yaml, completeUpload,
 * assumed): the list is read in part-number order whatever its order; every part listed must be a
 * part of the plan, PUT, with the ETag its PUT answered; none twice; and the parts listed must add
 * up to the exact size the image was opened with, which only the whole plan does (every part holds
 * at least one byte). A refusal is a 422 that changes nothing.
 *
 * With no body or an empty `parts` (the interface's own words), the service takes the parts it
 * finds in storage: once every part of the plan was PUT with its exact bytes, those are the whole
 * file, and the complete is taken as a complete naming them all would be.
 */
export type ListedParts =
  /** No body or an empty list, and every part of the plan is in storage at its size. */
  | { kind: 'discovered' }
  /** The plan or its parts are not known to the model (or an entry is malformed): nothing is predicted. */
  | { kind: 'unknown' }
  /**
   * `clause`: the refusal is that clause's alone (a part listed twice: UP-23). `found`: no list
   * was sent, and the parts storage holds fall short of the size.
   */
  | { kind: 'refused'; why: string; clause?: string; found?: true }
  | { kind: 'accepted' };

/**
 * The most parts a list may name (openapi.yaml, CompleteUploadRequest.parts maxItems, as many as a
 * plan has at most). A longer list is the document's schema's to refuse (422, the validation
 * array), which a target may do before it looks the image up: the model predicts nothing of it.
 */
const MOST_LISTED_PARTS = 512;

export const listsPastMost = (sent: unknown): boolean =>
  isObject(sent) && Array.isArray(sent.parts) && sent.parts.length > MOST_LISTED_PARTS;

const unquoted = (etag: string) =>
  etag
    .trim()
    .replace(/^"(.*)"$/, '$1')
    .toLowerCase();

/**
 * No body (an empty one, whatever Content-Type a client put on it), an empty object, or
 * `{parts: []}`: the parts are the service's to find.
 */
const asksDiscovery = (sent: unknown): boolean =>
  sent === undefined ||
  (typeof sent === 'string' && sent.trim() === '') ||
  (isObject(sent) &&
    Object.keys(sent).every((name) => name === 'parts') &&
    (sent.parts === undefined || (Array.isArray(sent.parts) && sent.parts.length === 0)));

/** Whether storage holds every part of the plan with the bytes the plan gives it. */
function wholeInStorage(image: ImageRecord): boolean {
  const { plan, size } = image;
  if (!plan || size === undefined) return false;
  for (let part = 1; part <= plan.partCount; part++) {
    const expected = part < plan.partCount ? plan.partSize : size - (plan.partCount - 1) * plan.partSize;
    if (image.partSizes.get(part) !== expected) return false;
  }
  return true;
}

/**
 * The bytes the given parts hold in storage, when the PUT of each told its size; "the parts
 * assembled must add up to the size the image was opened with" (document, completeUpload).
 */
function sizeMismatch(
  image: ImageRecord,
  parts: number[],
): Extract<ListedParts, { kind: 'refused' }> | undefined {
  const sizes = parts.map((part) => image.partSizes.get(part));
  if (image.size === undefined || sizes.some((size) => size === undefined)) return undefined;
  const total = sizes.reduce<number>((sum, size) => sum + size!, 0);
  if (total === image.size) return undefined;
  return {
    kind: 'refused',
    why: `the parts hold ${total} bytes, not the size ${image.size} it was opened with`,
  };
}

const planParts = (image: ImageRecord): number[] =>
  Array.from({ length: image.plan?.partCount ?? 0 }, (_, i) => i + 1);

/**
 * A discovery short of the size: the interface says only that complete with no body discovers the
 * parts, and shows no answer for parts that fall short; the 422 and the upload kept open are the
 * document's choice (assumed), so that refusal is judged under its own assumed clause.
 */
const FOUND_SHORT = 'UP-26';

export function judgeListedParts(image: ImageRecord, sent: unknown): ListedParts {
  // Every PUT to the plan's URLs is seen: they were handed to this check alone.
  if (asksDiscovery(sent)) {
    if (wholeInStorage(image)) return { kind: 'discovered' };
    // a part of the plan never PUT is not in storage: the parts found hold less than the size
    const missing = planParts(image).filter((part) => !image.partsStored?.has(part));
    if (missing.length)
      return {
        kind: 'refused',
        why: `part${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of the plan's ${image.plan!.partCount} never PUT: the parts in storage hold less than the size ${image.size ?? ''}`.trimEnd(),
        found: true,
        clause: FOUND_SHORT,
      };
    // every part of the plan in storage, at sizes that do not add up: storage holds no other parts
    const mismatch = image.plan && sizeMismatch(image, planParts(image));
    return mismatch ? { ...mismatch, found: true, clause: FOUND_SHORT } : { kind: 'unknown' };
  }
  const parts = isObject(sent) && Array.isArray(sent.parts) ? sent.parts : [];
  const plan = image.plan;
  if (!plan || parts.length === 0) return { kind: 'unknown' };
  const seen = new Set<number>();
  for (const part of parts) {
    if (!isObject(part) || !Number.isSafeInteger(part.part_number) || typeof part.etag !== 'string')
      return { kind: 'unknown' }; // the document's schema judges a malformed entry
    const number = part.part_number as number;
    // the interface only says parts assembles a subset: a store that merges a part listed twice
    // (202), or an S3 backend's 400 InvalidPartOrder, follows it; the 422 is the document's (UP-23)
    if (seen.has(number)) return { kind: 'refused', why: `part ${number} listed twice`, clause: 'UP-23' };
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
  // parts PUT with sizes the client did not tell are taken as the plan's
  return sizeMismatch(image, [...seen]) ?? { kind: 'accepted' };
}
