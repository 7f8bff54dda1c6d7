import type { Exchange, Finding } from './exchange.js';
import type { World } from './world.js';

/**
 * The same request asked again answers with the same kind of headers: nothing the interface shows
 * makes a second answer's media type, caching or attachment differ from the first's. Values that
 * move by nature (dates, lengths, validators of a record that changed, request ids, rate counters)
 * are left alone; the names of the headers sent, and the values below, are compared.
 */
const SENTENCE =
  'Bodies are JSON unless stated; exports are returned as file attachments (the same request is answered alike each time)';
const COMPARED = ['content-type', 'cache-control', 'content-disposition', 'x-content-type-options', 'vary'];
const MOVING =
  /^(date|content-length|etag|last-modified|x-request-id|age|retry-after|set-cookie|keep-alive|connection|server-timing|(x-)?ratelimit-.*)$/;

export function observeRepeat(world: World, x: Exchange): Finding[] {
  const key = `${x.method} ${x.url} ${x.status} ${x.key ?? ''}`;
  const names = Object.keys(x.headers)
    .filter((h) => !MOVING.test(h))
    .sort();
  const values = Object.fromEntries(COMPARED.map((h) => [h, x.headers[h] ?? null]));
  const first = world.firstAnswers.get(key);
  if (!first) {
    world.firstAnswers.set(key, { names, values });
    return [];
  }
  const findings: Finding[] = [];
  const subject = `${x.operationId} asked again (${x.status})`;
  if (first.names.join(',') !== names.join(','))
    findings.push({
      sentence: SENTENCE,
      subject: `${subject}: header names`,
      predicted: first.names.join(', '),
      received: names.join(', '),
    });
  for (const h of COMPARED)
    if (first.values[h] !== values[h])
      findings.push({
        sentence: SENTENCE,
        subject: `${subject}: ${h}`,
        predicted: String(first.values[h]),
        received: String(values[h]),
      });
  return findings;
}
