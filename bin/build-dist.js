#!/usr/bin/env node
/* global process, console, URL */
// `npm run build` (and `prepare`, `prepack`): compiles mock-server/ once into dist/ with tsc, so the
// mock starts on plain Node with no TypeScript compiled at run time, and copies beside it the files
// the server reads by a path relative to its own modules (the document, the default seed), keeping
// the checkout's layout inside dist/. Plain JavaScript: it runs before anything is built.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const ASSETS = ['openapi/openapi.yaml', 'openapi/mock-control.yaml', 'fixtures/seed.json'];

// A file removed from the sources must not live on in dist/.
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
  cwd: root,
  stdio: 'inherit',
});
if (compiled.status !== 0) {
  console.error('build: tsc failed; dist/ is incomplete');
  process.exit(compiled.status ?? 1);
}
for (const asset of ASSETS) {
  mkdirSync(new URL(`../dist/${asset}/..`, import.meta.url), { recursive: true });
  cpSync(new URL(`../${asset}`, import.meta.url), new URL(`../dist/${asset}`, import.meta.url));
}
// The two documents merged, as JSON, which the server reads instead of the YAML (openapi/documents.ts).
const documents = await import(new URL('../dist/openapi/documents.js', import.meta.url).href);
const served = documents.mergeDocuments(
  documents.readDocument(documents.PUBLIC_DOCUMENT),
  documents.readDocument(documents.CONTROL_DOCUMENT),
);
writeFileSync(documents.BUILT_SERVED_DOCUMENT, JSON.stringify(served));
// The bin compares the sources against this file's time to see whether dist/ is current.
writeFileSync(new URL('../dist/.built', import.meta.url), `${new Date().toISOString()}\n`);
