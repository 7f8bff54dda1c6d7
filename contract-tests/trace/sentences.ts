import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The interface (the repository's copy of shared/api-interface.md, openapi/interface/) cut into
 * sentences, each with an id that survives edits elsewhere in the file: the slug of its section
 * and a short hash of the section and of its own text, whitespace and Markdown emphasis
 * normalised. A paragraph or a list item gives one sentence per full stop; a table row is one
 * sentence (its cells joined), since a row is one rule (a state transition, a field).
 */
export interface Sentence {
  /** `post-upload.3fa2c1`: section slug, then six hex digits of the hash. */
  id: string;
  /** The headings above it, outermost first: `Endpoints > Upload > POST /api/v1/upload`. */
  section: string;
  /** Its place in the section, from 1: only for reading the table, the id does not use it. */
  ordinal: number;
  text: string;
}

export const INTERFACE_COPY = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../openapi/interface/api-interface.md',
);

const normalise = (text: string) => text.replace(/\*\*/g, '').replace(/\s+/g, ' ').trim();

const slugOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/\/api\/v1/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** A sentence ends at a full stop (or one closing a parenthesis) followed by a space and what starts a sentence. */
const splitSentences = (text: string) =>
  text
    .split(/(?<=\.|\.\))\s+(?=[A-Z`{(])/)
    .map(normalise)
    .filter(Boolean);

export function sentencesOf(markdown: string): Sentence[] {
  const out: Sentence[] = [];
  const headings: string[] = [];
  let ordinal = 0;
  const add = (text: string) => {
    const section = headings.join(' > ');
    const hash = createHash('sha256').update(`${section}\n${text}`).digest('hex').slice(0, 6);
    out.push({ id: `${slugOf(headings.at(-1) ?? 'top')}.${hash}`, section, ordinal: ++ordinal, text });
  };
  const enter = (level: number, heading: string) => {
    headings.length = level;
    headings[level - 1] = heading;
    ordinal = 0;
  };
  for (const raw of markdown.split('\n')) {
    const line = raw.trim();
    if (!line || /^\|[-| ]+\|$/.test(line)) continue;
    const heading = /^(#{1,3}) (.*)$/.exec(line);
    if (heading) {
      // the title (#) is no section: ## is the first level
      if (heading[1].length > 1) enter(heading[1].length - 1, normalise(heading[2]));
      continue;
    }
    const endpoint = /^\*\*([^*]+)\*\*:?\s*(.*)$/.exec(line);
    if (endpoint && headings.length >= 2) {
      enter(3, normalise(endpoint[1]).replace(/`/g, ''));
      for (const s of splitSentences(endpoint[2])) add(s);
      continue;
    }
    if (line.startsWith('|')) {
      const cells = line.split('|').slice(1, -1).map(normalise);
      // a table's header row names columns, it states nothing
      if (cells.every((c) => /^[A-Z][a-z ]*$/.test(c) && !c.includes('`'))) continue;
      add(cells.join(' | '));
      continue;
    }
    for (const s of splitSentences(line.replace(/^(-|\d+\.)\s+/, ''))) add(s);
  }
  return out;
}

let read: Sentence[] | undefined;

/** The sentences of the repository's copy of the interface (read once: every report asks). */
export function interfaceSentences(): Sentence[] {
  read ??= sentencesOf(readFileSync(INTERFACE_COPY, 'utf8'));
  return read;
}
