import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pages = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

it.each(pages)('every relative link of %s points at a file of the repository', (page) => {
  const text = readFileSync(path.join(ROOT, page), 'utf8');
  const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1].split('#')[0])
    .filter((t) => t && !/^[a-z]+:/.test(t));
  const missing = targets.filter((t) => !existsSync(path.resolve(ROOT, path.dirname(page), t)));
  expect(missing, `${page} links to missing files`).toEqual([]);
});
