/**
 * Fails when a file of openapi/generated/ is not what its generator makes of its document today:
 * the types and the generated client must follow the documents, never the other way round.
 * `npm run types:generate` fixes it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
  { document: 'openapi/openapi.yaml', output: 'api-types.ts', generate: openapiTypescript },
  { document: 'openapi/mock-control.yaml', output: 'mock-control-types.ts', generate: openapiTypescript },
  { document: 'openapi/openapi.yaml', output: 'client', generate: heyApiClient },
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

const dir = mkdtempSync(path.join(os.tmpdir(), 'types-'));
let stale = false;
try {
  for (const { document, output, generate } of generated) {
    const committed = path.join('openapi', 'generated', output);
    const fresh = path.join(dir, output);
    generate(document, fresh);
    if (same(fresh, committed)) {
      console.log(`${committed} matches ${document}`);
    } else {
      console.error(`${committed} is stale: run npm run types:generate and commit the result.`);
      stale = true;
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (stale) process.exit(1);
