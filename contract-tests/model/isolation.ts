import type { Exchange, Finding, NotFoundAnswerIn } from './exchange.js';
import type { NotFoundAnswer, World } from './world.js';

/**
 * "A resource of another organization is answered as not found (404)": as not found, so nothing in
 * the answer tells a client that the id exists elsewhere. Per operation, the 404 for another
 * organization's id is held against the 404 for an id nobody has, the asked id taken out.
 */
const SENTENCE =
  'A key is scoped to the organization that owns it … A resource of another organization is answered as not found (404)';
const VOLATILE = new Set([
  'date',
  'content-length',
  'x-request-id',
  'etag',
  'keep-alive',
  'connection',
  'age',
  'server-timing',
]);

export function notFoundAnswer(x: Exchange, id: string): NotFoundAnswer {
  return {
    id,
    body: x.bytes.toString('utf8').split(id).join('{id}'),
    contentType: x.headers['content-type'] ?? '',
    headerNames: Object.keys(x.headers)
      .filter((h) => !VOLATILE.has(h))
      .sort()
      .join(', '),
  };
}

/** Notes a 404 as `kind`, and once both kinds are known for the operation, compares them. */
export function observeNotFound(world: World, x: Exchange, kind: NotFoundAnswerIn, id: string): Finding[] {
  if (x.status !== 404) return [];
  const seen = world.notFound.get(x.operationId) ?? {};
  world.notFound.set(x.operationId, seen);
  seen[kind] ??= notFoundAnswer(x, id);
  const { missing, foreign } = seen;
  if (!missing || !foreign || seen.compared) return [];
  seen.compared = true;
  const findings: Finding[] = [];
  for (const field of ['body', 'contentType', 'headerNames'] as const)
    if (missing[field] !== foreign[field])
      findings.push({
        sentence: SENTENCE,
        subject: `${x.operationId} 404 for another organization's id (${foreign.id}), against a missing id's (${missing.id}): ${field}`,
        predicted: JSON.stringify(missing[field]),
        received: JSON.stringify(foreign[field]),
      });
  return findings;
}
