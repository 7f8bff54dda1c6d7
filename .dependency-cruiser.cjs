/**
 * The house's import rules (docs/architecture.md), checked by `npm run lint:deps`:
 * imports only go down the layers, nothing imports in a circle, the contract suite speaks HTTP only,
 * and no source imports test support.
 *
 *   main/server  ->  services.ts (and services/), http-wiring.ts (composition root: builds the services, hands http its use cases)
 *   http (thin: parse, call, answer; declares the use cases it calls)  ->  control, domain
 *   control      ->  domain (use cases and rules, owns the ports)
 *   domain       ->  engines (pure work: arrays and bytes in and out)
 *   stores, runtime implement the domain's ports (database, files, object store, process pools)
 */
const SRC = '^mock-server/';
const notTest = '\\.test\\.ts$';
// services/ holds the composition root's parts: no layer imports them either.
const wiring = `${SRC}((services|http-wiring|server|main|index)\\.ts$|services/)`;

/** A folder of mock-server/ that may not import the named folders (nor the wiring above them). */
function layer(name, folder, forbidden, why) {
  return {
    name,
    comment: why,
    severity: 'error',
    from: { path: `${SRC}${folder}/`, pathNot: notTest },
    to: { path: [`${SRC}(${forbidden.join('|')})/`, wiring, '^node_modules/express/'] },
  };
}

// eslint-disable-next-line no-undef -- dependency-cruiser reads a CommonJS config
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Files that import each other in a loop cannot be understood (or moved) one at a time.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'contract-suite-speaks-http-only',
      comment: 'The contract suite runs against any target, so it may not import the mock.',
      severity: 'error',
      from: { path: '^contract-tests/' },
      to: { path: SRC },
    },
    {
      name: 'sandbox-runs-the-mock-as-a-process',
      comment:
        'The sandbox launcher starts instances as a deployment does (bin/cellseg-mock.js), never inside itself.',
      severity: 'error',
      from: { path: '^sandbox/', pathNot: notTest },
      to: { path: SRC },
    },
    {
      name: 'sources-do-not-import-test-support',
      comment: 'Test support is for tests; the mock must run without it.',
      severity: 'error',
      from: { path: SRC, pathNot: notTest },
      to: { path: '^test-support/' },
    },
    layer(
      'domain-below-adapters',
      'domain',
      ['http', 'control', 'stores', 'runtime'],
      'The domain owns ports; adapters and HTTP sit above it.',
    ),
    layer(
      'engines-are-pure',
      'engines',
      ['http', 'control', 'domain', 'stores', 'runtime'],
      'Engines are pure work: bytes and arrays in and out.',
    ),
    layer(
      'stores-below-http',
      'stores',
      ['http', 'control', 'runtime'],
      "Stores implement the domain's ports, below HTTP.",
    ),
    layer(
      'runtime-below-http',
      'runtime',
      ['http', 'control', 'stores'],
      'Process pools run engines, below HTTP.',
    ),
    {
      name: 'http-declares-its-use-cases',
      comment:
        'http/ declares the use cases it calls (http/use-cases.ts); the composition root (http-wiring.ts) hands them in, so http/ never imports the wiring.',
      severity: 'error',
      from: { path: `${SRC}http/`, pathNot: notTest },
      to: { path: wiring },
    },
    layer(
      'control-below-http',
      'control',
      ['http'],
      'The control plane keeps state (faults, journal); its routes live in http/.',
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^node_modules', '^fixtures/generated', '^openapi/generated', '^reports', '^dist'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
