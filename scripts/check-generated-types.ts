/**
 * Fails when a file of openapi/generated/ is not what its generator makes of its document today:
 * the types and the generated client must follow the documents, never the other way round.
 * `npm run types:generate` fixes it.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

interface Generated {
  document: string;
  /** Under openapi/generated/: one file, or a folder. */
  output: string;
  generate(document: string, output: string): void;
}

// The installed generators themselves: npx would start npm first, for each of the three.
const bin = (name: string) => path.join('node_modules', '.bin', name);
const openapiTypescript = (document: string, output: string) =>
  execFileSync(bin('openapi-typescript'), [document, '-o', output], { stdio: 'pipe' });
const heyApiClient = (document: string, output: string) =>
  execFileSync(bin('openapi-ts'), ['-i', `./${document}`, '-o', output], { stdio: 'pipe' });

const generated: Generated[] = [
  {
    document: 'openapi/openapi.yaml',
    output: 'api-types.ts',
    generate: openapiTypescript,
  },
  {
    document: 'openapi/mock-control.yaml',
    output: 'mock-control-types.ts',
    generate: openapiTypescript,
  },
  {
    document: 'openapi/openapi.yaml',
    output: 'client',

    generate: heyApiClient,
  },
];

/** Relative path and text of every file under `root` (or of `root` itself when it is a file). */
function contents(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const entries = readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  for (const entry of entries) {
    const file = path.join(entry.parentPath, entry.name);
    files.set(path.relative(root, file), readFileSync(file, 'utf8'));
  }
  return files;
}

function same(fresh: string, committed: string): boolean {
  if (!committed.endsWith('.ts')) {
    const [a, b] = [contents(fresh), contents(committed)];
    return a.size === b.size && [...a].every(([name, text]) => b.get(name) === text);
  }
  return readFileSync(fresh, 'utf8') === readFileSync(committed, 'utf8');
}

/**
 * Where a match is remembered, as eslint and tsc remember theirs: a digest of everything the
 * verdict depends on (the document, the committed output, the lockfile that pins the generators,
 * this script).
 * The same digest next time means the same verdict, without the three generators' five seconds of
 * CPU; any change to one of them runs the generator again. A fresh clone (CI) has no record.
 */
const RECORDS = path.join('node_modules', '.cache', 'types-check');

function inputsDigest({ document, output }: Generated): string | undefined {
  const committed = path.join('openapi', 'generated', output);
  let files: Map<string, string>;
  try {
    files = output.endsWith('.ts')
      ? new Map([[output, readFileSync(committed, 'utf8')]])
      : contents(committed);
  } catch {
    return undefined; // nothing committed yet: the generator runs, and the comparison says so
  }
  const hash = createHash('sha256');
  // The lockfile pins the generator and everything it runs on.
  hash.update(`${readFileSync('package-lock.json')}\0${readFileSync(import.meta.filename)}\0`);
  hash.update(`${document}\0${readFileSync(document)}\0`);
  for (const [name, text] of [...files].sort(([a], [b]) => a.localeCompare(b)))
    hash.update(`${name}\0${text}\0`);
  return hash.digest('hex');
}

const recordOf = (output: string) => path.join(RECORDS, `${output}.sha256`);
const remembered = (output: string, digest: string | undefined) => {
  if (digest === undefined) return false;
  try {
    return readFileSync(recordOf(output), 'utf8') === digest;
  } catch {
    return false;
  }
};

const dir = mkdtempSync(path.join(os.tmpdir(), 'types-'));
let stale = false;
try {
  for (const entry of generated) {
    const { document, output, generate } = entry;
    const committed = path.join('openapi', 'generated', output);
    const digest = inputsDigest(entry);
    if (remembered(output, digest)) {
      console.log(`${committed} matches ${document} (checked before; nothing it depends on changed)`);
      continue;
    }
    const fresh = path.join(dir, output);
    generate(document, fresh);
    if (same(fresh, committed)) {
      console.log(`${committed} matches ${document}`);
      if (digest !== undefined) {
        mkdirSync(RECORDS, { recursive: true });
        writeFileSync(recordOf(output), digest);
      }
    } else {
      console.error(`${committed} is stale: run npm run types:generate and commit the result.`);
      stale = true;
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (stale) process.exit(1);
