import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const DEFAULT_FOLDER = path.join(os.tmpdir(), 'cellseg-openapi-parses');
const inMemory = new Map<string, unknown>();

/**
 * YAML text parsed, as plain JSON values. Parsing the documents takes 250-300 ms each here, and
 * every test worker, script and mock run from the sources parsed them again; so a parse is kept
 * in memory and as JSON in `folder` (under the OS temporary folder by default), both named by a
 * hash of the text: a changed document is parsed afresh, and a stale parse is never read. The file
 * is written whole or not at all (a temporary file renamed into place), and one that does not read
 * back as JSON is parsed again. The result is shared: copy it before changing it.
 */
export function parseYamlCached(text: string, folder = DEFAULT_FOLDER): unknown {
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 32);
  const file = path.join(folder, `${hash}.json`);
  const key = `${folder}\0${hash}`;
  if (inMemory.has(key)) return inMemory.get(key);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // The YAML library loads only here: the built mock reads JSON (bin/build-dist.js).
    parsed = (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(text);
    try {
      mkdirSync(folder, { recursive: true });
      const temporary = `${file}.${process.pid}.tmp`;
      writeFileSync(temporary, JSON.stringify(parsed));
      renameSync(temporary, file);
    } catch {
      // a read-only or full temporary folder only costs the next reader a parse
    }
  }
  inMemory.set(key, parsed);
  return parsed;
}
