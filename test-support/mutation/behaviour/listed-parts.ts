import type { Answer, Exchange } from '../../sabotage-catalogue.js';
import { behaviourMutant } from './behaviour-mutant.js';
import { bodyOf, createdImage, route } from './proxy-effects.js';

/**
 * Complete with a `parts` list (openapi.yaml, completeUpload, assumed): read in part-number order
 * whatever the list's order, each part in the plan and PUT with the ETag its PUT answered, or a
 * 422 that leaves the upload open. Each mutant rewrites the list the client sent before the mock
 * reads it, as a store that reads the list wrongly would.
 */

const SUBSET = 'post-upload-image-id-complete.59b055';
const BODY = 'post-upload-image-id-complete.ac59ed';
const COMPLETE = /^\/api\/v1\/upload\/([^/]+)\/complete$/;

interface ListedPart {
  part_number: number;
  etag: string;
}

/** The `parts` of a complete request, when it lists some. */
function listedParts(exchange: Exchange): { id: string; parts: ListedPart[] } | undefined {
  const id = exchange.method === 'POST' ? COMPLETE.exec(route(exchange))?.[1] : undefined;
  const parts = id ? bodyOf<{ parts?: ListedPart[] }>(exchange.body)?.parts : undefined;
  return id && Array.isArray(parts) && parts.length > 0 ? { id, parts } : undefined;
}

const withParts = (exchange: Exchange, parts: ListedPart[]) => {
  exchange.body = Buffer.from(JSON.stringify({ parts }));
};

const ascending = (parts: ListedPart[]) =>
  parts.every((p, i) => i === 0 || parts[i - 1].part_number < p.part_number);

export const listedPartMutants = () => [
  behaviourMutant({
    rule: 'listed-parts',
    edit: 'order-refused',
    summary:
      'Complete refuses a parts list that is not in part-number order (as S3 does), instead of reading it in part order.',
    sentences: [SUBSET, BODY],
    triggers: [['completeUpload', 202]],
    make: () => ({
      request: (exchange: Exchange) => {
        const listed = listedParts(exchange);
        if (!listed || ascending(listed.parts)) return;
        // A part listed twice is what the mock refuses with 422: the list out of order meets it.
        withParts(exchange, [...listed.parts, listed.parts[0]]);
      },
    }),
  }),
  behaviourMutant({
    rule: 'listed-parts',
    edit: 'etag-unchecked',
    summary: "Complete takes a listed part whatever ETag it is listed with (the part's own is used).",
    sentences: [SUBSET, BODY],
    triggers: [['completeUpload', 422]],
    make() {
      /** By part URL path: the image and the part number; then the ETag each PUT answered. */
      const partOf = new Map<string, { image: string; part: number }>();
      const etags = new Map<string, Map<number, string>>();
      return {
        request: (exchange: Exchange) => {
          const listed = listedParts(exchange);
          const known = listed && etags.get(listed.id);
          if (!listed || !known) return;
          withParts(
            exchange,
            listed.parts.map((p) => ({ ...p, etag: known.get(p.part_number) ?? p.etag })),
          );
        },
        response: (exchange: Exchange, answer: Answer) => {
          const image = createdImage(exchange, answer);
          const plan = image?.upload as { urls?: Array<{ part_number: number; url: string }> } | undefined;
          for (const { part_number, url } of plan?.urls ?? [])
            partOf.set(new URL(url).pathname, { image: image!.id, part: part_number });
          const put = exchange.method === 'PUT' ? partOf.get(route(exchange)) : undefined;
          if (!put || answer.status !== 200 || !answer.headers.etag) return;
          if (!etags.has(put.image)) etags.set(put.image, new Map());
          etags.get(put.image)!.set(put.part, answer.headers.etag);
        },
      };
    },
  }),
  behaviourMutant({
    rule: 'listed-parts',
    edit: 'duplicate-merged',
    summary:
      'Complete collects the listed parts by part number: a part listed twice is merged (the last ETag wins) and the upload assembled, where the document refuses it (UP-23).',
    sentences: [SUBSET],
    triggers: [['completeUpload', 422]],
    make: () => ({
      request: (exchange: Exchange) => {
        const listed = listedParts(exchange);
        if (!listed) return;
        const merged = new Map(listed.parts.map((p) => [p.part_number, p]));
        if (merged.size < listed.parts.length) withParts(exchange, [...merged.values()]);
      },
    }),
  }),
  behaviourMutant({
    rule: 'listed-parts',
    edit: 'outside-plan-dropped',
    summary: "Complete drops a listed part outside the upload's plan and assembles the rest.",
    sentences: [SUBSET, BODY],
    triggers: [['completeUpload', 422]],
    make() {
      const partCount = new Map<string, number>();
      return {
        request: (exchange: Exchange) => {
          const listed = listedParts(exchange);
          const count = listed && partCount.get(listed.id);
          if (!listed || !count) return;
          const inside = listed.parts.filter((p) => p.part_number <= count);
          if (inside.length < listed.parts.length) withParts(exchange, inside);
        },
        response: (exchange: Exchange, answer: Answer) => {
          const image = createdImage(exchange, answer);
          const plan = image?.upload as { urls?: unknown[] } | undefined;
          if (image && Array.isArray(plan?.urls)) partCount.set(image.id, plan.urls.length);
        },
      };
    },
  }),
];
