#!/usr/bin/env node
/* global process, console, URL */
// `npm run build` (and `prepare`, so `npm ci`/`npm install` and `npm pack` run it): builds
// mock-server/ once into dist/, so the mock starts on plain Node with nothing compiled at start.
//
// - esbuild bundles the sources and their dependencies into a few ES modules, one folder deep
//   (dist/mock-server/): Node then reads a handful of files instead of several hundred small
//   CommonJS ones, which was most of the time to a first answer and a good part of the idle
//   memory (docs/running.md, "How the mock starts"). Code that only some
//   requests need (sharp, the ZIP writer, the object store's S3 signer, the validators) sits in
//   chunks of its own that load on first use.
// - tsc writes only the type declarations beside them, for the package's programmatic API.
// - The files the server reads at run time (the documents, the seed, the dashboard's assets) are
//   copied under dist/ in the checkout's layout: dist/ is to the built mock what the checkout is to
//   the sources (openapi/documents.ts finds them from there).
// - The files /docs serves (Swagger UI's bundle, its style sheet, icon and licence) are copied from
//   the swagger-ui-dist devDependency into dist/docs-ui/: the package then installs no
//   swagger-ui-dist, and so not the install-time analytics (@scarf/scarf) that package depends on
//   (mock-server/http/reference-routes.ts).
// Plain JavaScript: it runs before anything is built.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../', import.meta.url));
const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const ASSETS = [
  'openapi/openapi.yaml',
  'openapi/mock-control.yaml',
  'fixtures/seed.json',
  'mock-server/control/ui/assets',
];
/**
 * Each entry's name is its file under dist/. The decoder's child entry and its tasks module are
 * found by the pool as siblings of its own module (child-process-pool.ts, decoder-pools.ts), and
 * every chunk is written in the same folder, so those relative URLs hold in the bundle too.
 */
const ENTRIES = {
  'mock-server/main': 'mock-server/main.ts',
  'mock-server/index': 'mock-server/index.ts',
  'mock-server/child-main': 'mock-server/runtime/decoder-pool/child-main.ts',
  'mock-server/decoder-tasks': 'mock-server/runtime/decoder-pool/decoder-tasks.ts',
  'mock-server/readiness-command': 'mock-server/readiness/readiness-command.ts',
};
/** Loaded from node_modules as installed: native code. */
const EXTERNAL = ['sharp'];
/** What /docs serves, from swagger-ui-dist; the licence and notice go with the copy. */
const DOCS_UI = ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png', 'LICENSE', 'NOTICE'];

// Bundled CommonJS packages call require(); an ES module has none of its own.
const REQUIRE_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

// A file removed from the sources must not live on in dist/.
rmSync(dist, { recursive: true, force: true });

const bundled = await build({
  absWorkingDir: root,
  metafile: true,
  entryPoints: Object.entries(ENTRIES).map(([out, input]) => ({ in: input, out })),
  outdir: 'dist',
  chunkNames: 'mock-server/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  external: EXTERNAL,
  banner: { js: REQUIRE_BANNER },
  legalComments: 'none',
  logLevel: 'warning',
});

// The partner-contract commands (`cellseg-mock contract record|verify`), from the contract suite:
// one file of their own, two folders deep as in the checkout, so the suite's files found from
// their module's place (the seed, the documents) are found under dist/ as under the checkout.
const contractCommands = await build({
  absWorkingDir: root,
  metafile: true,
  entryPoints: ['contract-tests/partner/contract-command.ts'],
  outfile: 'dist/contract-tests/partner/contract-command.js',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  banner: { js: REQUIRE_BANNER },
  legalComments: 'none',
  logLevel: 'warning',
});

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const declared = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
  cwd: root,
  stdio: 'inherit',
});
if (declared.status !== 0) {
  console.error('build: tsc failed to write the type declarations; dist/ is incomplete');
  process.exit(declared.status ?? 1);
}

for (const asset of ASSETS) {
  mkdirSync(new URL(`../dist/${asset}/..`, import.meta.url), { recursive: true });
  cpSync(new URL(`../${asset}`, import.meta.url), new URL(`../dist/${asset}`, import.meta.url), {
    recursive: true,
  });
}

const swaggerUi = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
mkdirSync(new URL('../dist/docs-ui/', import.meta.url), { recursive: true });
for (const file of DOCS_UI)
  cpSync(path.join(swaggerUi, file), fileURLToPath(new URL(`../dist/docs-ui/${file}`, import.meta.url)));

// The two documents merged, as JSON, which the server reads instead of the YAML, and each one
// parsed, for serving the control document (openapi/documents.ts). Built on its own, run once,
// removed.
const documentsModule = new URL('../dist/.documents.mjs', import.meta.url);
await build({
  absWorkingDir: root,
  entryPoints: ['openapi/documents.ts'],
  outfile: fileURLToPath(documentsModule),
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  banner: { js: REQUIRE_BANNER },
  logLevel: 'warning',
});
const documents = await import(documentsModule.href);
const served = documents.mergeDocuments(
  documents.readDocument(documents.PUBLIC_DOCUMENT),
  documents.readDocument(documents.CONTROL_DOCUMENT),
);
writeFileSync(documents.BUILT_SERVED_DOCUMENT, JSON.stringify(served));
for (const file of [documents.PUBLIC_DOCUMENT, documents.CONTROL_DOCUMENT])
  writeFileSync(documents.parsedCopy(file), JSON.stringify(documents.readDocument(file)));
rmSync(documentsModule);

// What dist/ was built from: bin/cellseg-mock.js compares these files' times with the build's to
// see whether dist/ is current. Listing them here spares it a walk of the source tree at every
// start (10-20 ms here; stating the listed files takes 2). A module added since must be imported by
// one listed here, which then changed too.
const sources = [
  ...[...Object.keys(bundled.metafile.inputs), ...Object.keys(contractCommands.metafile.inputs)].filter(
    (file) => !file.includes('node_modules') && !file.includes(':'),
  ),
  ...ASSETS,
  'package.json',
];
writeFileSync(
  new URL('../dist/.built', import.meta.url),
  `${JSON.stringify({ builtAt: new Date().toISOString(), sources }, null, 1)}\n`,
);
