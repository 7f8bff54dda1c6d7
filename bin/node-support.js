/* global URL, process */
// Whether this Node can run the mock, said in one line before anything loads. Plain JavaScript:
// the launcher, `npm test` and .ci/run read it on any Node, also one too old for the rest (Node 20 is still
// the default on some machines, and there the mock's first import dies on node:sqlite with a stack
// trace that buries the reason).
import { readFileSync } from 'node:fs';

/**
 * The reason this Node cannot run the package at `root`, or undefined when it can. The minimum is
 * package.json's "engines" (`>=22.19`): node:sqlite without a flag.
 * @param {URL} root the package's folder, as a file: URL ending in '/'
 * @param {string} [version] the Node version to judge (default: this process's)
 * @returns {string | undefined}
 */
export function unsupportedNode(root, version = process.versions.node) {
  const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
  const range = pkg.engines?.node ?? '';
  const minimum = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  if (!minimum) throw new Error(`package.json "engines.node" is '${range}', not '>=X.Y.Z'`);
  const want = minimum.slice(1).map((part) => Number(part ?? 0));
  const have = version.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    if ((have[i] ?? 0) > want[i]) return undefined;
    if ((have[i] ?? 0) < want[i])
      return `${pkg.name} needs Node ${want.join('.')} or newer (node:sqlite is built in from there); this is Node ${version} (${process.execPath}). Put Node ${want[0]} or newer first on PATH (nvm, or \`npm install --prefix ~/node${want[0]} node@${want[0]}\` and ~/node${want[0]}/node_modules/node/bin).`;
  }
  return undefined;
}
