/**
 * Fails when a file of openapi/generated/ is not what openapi-typescript makes of its document
 * today: the types must follow the documents, never the other way round. `npm run types:generate`
 * fixes it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const pairs = [
  { document: 'openapi/openapi.yaml', types: 'api-types.ts' },
  { document: 'openapi/mock-control.yaml', types: 'mock-control-types.ts' },
];

const dir = mkdtempSync(path.join(os.tmpdir(), 'types-'));
let stale = false;
try {
  for (const { document, types } of pairs) {
    const committed = path.join('openapi', 'generated', types);
    const fresh = path.join(dir, types);
    execFileSync('npx', ['openapi-typescript', document, '-o', fresh], { stdio: 'pipe' });
    if (readFileSync(fresh, 'utf8') === readFileSync(committed, 'utf8')) {
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
