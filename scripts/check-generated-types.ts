/**
 * Fails when openapi/generated/api-types.ts is not what openapi-typescript makes of the document
 * today: the types must follow the document, never the other way round. `npm run types:generate` fixes it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const committed = path.join('openapi', 'generated', 'api-types.ts');
const dir = mkdtempSync(path.join(os.tmpdir(), 'types-'));
const fresh = path.join(dir, 'api-types.ts');
try {
  execFileSync('npx', ['openapi-typescript', 'openapi/openapi.yaml', '-o', fresh], { stdio: 'pipe' });
  const same = readFileSync(fresh, 'utf8') === readFileSync(committed, 'utf8');
  if (!same) {
    console.error(`${committed} is stale: run npm run types:generate and commit the result.`);
    process.exit(1);
  }
  console.log(`${committed} matches openapi/openapi.yaml`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
