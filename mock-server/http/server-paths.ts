import os from 'node:os';
import path from 'node:path';
import { INSTALL_ROOT } from '../../openapi/documents.js';
import { escapeRegExp } from './path-segment.js';

// Built, the install root is dist/, and the package around it (node_modules included) is hidden too.
const PACKAGE_ROOT = path.basename(INSTALL_ROOT) === 'dist' ? path.dirname(INSTALL_ROOT) : INSTALL_ROOT;
const roots = new Set<string>();
for (const root of [PACKAGE_ROOT, os.tmpdir(), os.homedir(), process.cwd()]) addServerRoot(root);

/** A folder whose files a client must never see named (the data folder is added at start). */
export function addServerRoot(folder: string): void {
  const resolved = path.resolve(folder);
  if (resolved !== path.parse(resolved).root) roots.add(resolved);
}

const PATH_REST = String.raw`[^\s'"\x60,;)]*`;

/**
 * Error texts reach clients from many places (a decoder's message, an fs error, a failed
 * prediction); any absolute path under a server folder in them becomes `<server path>`. Only the
 * known folders are matched, so an API path such as /api/v1/upload/{id} in a message stays.
 */
export function withoutServerPaths(text: string): string {
  let out = text;
  for (const root of [...roots].sort((a, b) => b.length - a.length)) {
    const escaped = escapeRegExp(root);
    out = out.replace(
      new RegExp(`(?:file://)?${escaped}(?=[/\\\\]|\\b|$)${PATH_REST}`, 'g'),
      '<server path>',
    );
  }
  return out;
}

/** The same for every string inside a 422 item list or any other detail value. */
export function detailWithoutServerPaths(detail: unknown): unknown {
  if (typeof detail === 'string') return withoutServerPaths(detail);
  if (Array.isArray(detail)) return detail.map(detailWithoutServerPaths);
  if (detail && typeof detail === 'object')
    return Object.fromEntries(Object.entries(detail).map(([k, v]) => [k, detailWithoutServerPaths(v)]));
  return detail;
}
