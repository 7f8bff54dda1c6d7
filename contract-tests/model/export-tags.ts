import { createHash } from 'node:crypto';
import type { Exchange, Finding } from './exchange.js';
import type { World } from './world.js';

/**
 * A strong ETag names one file (the document's ExportETag, assumed): the target that gives the
 * same strong tag to two exports whose bytes differ answers a conditional request for one with 304
 * while the client holds the other. Judged on conditional requests naming the export's own tag
 * alone, where a shared tag does that harm and which only the EXP-11 check sends, so a target that shares tags fails that assumed
 * clause, not the stated clauses of every check that downloads two exports.
 */
const SHARED =
  "ExportETag: a strong validator of the export's bytes: the same segmentation with the same options gives the same ETag, a different option a different one (document): one strong ETag never names two different files";

const digest = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('base64');

/** The bytes a strong ETag came with, by export URL (each URL's first file). */
export function learnExportTag(world: World, url: string, x: Exchange): void {
  const tag = x.headers.etag;
  if (x.status !== 200 || !tag || tag.startsWith('W/')) return;
  let files = world.exportTags.get(tag);
  if (!files) world.exportTags.set(tag, (files = new Map()));
  if (!files.has(url)) files.set(url, digest(x.bytes));
}

/**
 * A conditional request for the export at `url`, whose strong ETag `etag` the target also gave
 * another export with other bytes: its 304 (or its 200) rests on a tag that does not tell the two
 * files apart.
 */
export function observeSharedTag(
  world: World,
  url: string,
  etag: string | null | undefined,
  x: Exchange,
  findings: Finding[],
): void {
  const sent = x.sentHeaders?.['if-none-match'];
  if (sent === undefined || !etag || etag.startsWith('W/')) return;
  // only a request the shared tag decides: one naming this export's tag (a quoted comma splits a
  // tag here, which leaves that request unjudged)
  if (!sent.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) return;
  const files = world.exportTags.get(etag);
  const own = files?.get(url);
  const other = own === undefined ? undefined : [...files!].find(([u, d]) => u !== url && d !== own);
  if (!other) return;
  findings.push({
    sentence: SHARED,
    subject: `${x.operationId} with If-None-Match: its ETag ${etag} also came with ${other[0]}, whose bytes differ`,
    predicted: 'an ETag of its own',
    received: etag,
  });
}
