/* global URL */
// Whether dist/ may answer for the sources (bin/cellseg-mock.js runs it when it may, the sources
// through tsx when not). Plain JavaScript: the launcher reads it before anything is built.
import { existsSync, readFileSync, statSync } from 'node:fs';

/**
 * dist/ exists and, in a checkout, nothing it was built from changed since: bin/build-dist.js lists
 * in dist/.built every file that went into the bundle, and each is stated against the build's time
 * (2 ms, where walking the source tree took 10-20). A module added since must be imported by a
 * listed one, which then changed too. An installed package has no sources and is always current.
 * @param {URL} root the package's folder, as a file: URL ending in '/'
 * @returns {boolean}
 */
export function builtIsCurrent(root) {
  const built = new URL('dist/.built', root);
  if (!existsSync(built)) return false;
  if (!existsSync(new URL('mock-server/', root))) return true;
  let sources;
  try {
    ({ sources } = JSON.parse(readFileSync(built, 'utf8')));
  } catch {
    return false; // written by an older build
  }
  if (!Array.isArray(sources)) return false;
  const builtAt = statSync(built).mtimeMs;
  return sources.every((file) => {
    const stat = statSync(new URL(file, root), { throwIfNoEntry: false });
    // a folder (the dashboard's assets) counts by its own time: a file added, removed or renamed
    return stat !== undefined && stat.mtimeMs <= builtAt;
  });
}
