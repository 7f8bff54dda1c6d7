import { readFileSync } from 'node:fs';
import path from 'node:path';
import { INSTALL_ROOT } from '../../../openapi/documents.js';

export interface DashboardAsset {
  contentType: string;
  body: Buffer;
}

/**
 * The page's client files, served from the package (no CDN, works offline). A fixed list read once:
 * a request names one of these or gets a 404, so no path from a URL ever reaches the file system.
 */
const FILES: Record<string, string> = {
  'dashboard.css': 'text/css; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
  'dashboard.js': 'text/javascript; charset=utf-8',
  'control-api.js': 'text/javascript; charset=utf-8',
  'dom.js': 'text/javascript; charset=utf-8',
  'format.js': 'text/javascript; charset=utf-8',
  'downloads.js': 'text/javascript; charset=utf-8',
  'actions.js': 'text/javascript; charset=utf-8',
  'render-organizations.js': 'text/javascript; charset=utf-8',
  'render-images.js': 'text/javascript; charset=utf-8',
  'render-journal.js': 'text/javascript; charset=utf-8',
  'render-faults.js': 'text/javascript; charset=utf-8',
  'render-readiness.js': 'text/javascript; charset=utf-8',
};

// The build copies the assets to the same place under dist/ (bin/build-dist.js).
const ASSETS_FOLDER = path.join(INSTALL_ROOT, 'mock-server', 'control', 'ui', 'assets');

let loaded: Map<string, DashboardAsset> | undefined;

export function dashboardAsset(name: string): DashboardAsset | undefined {
  loaded ??= new Map(
    Object.entries(FILES).map(([file, contentType]) => [
      file,
      { contentType, body: readFileSync(path.join(ASSETS_FOLDER, file)) },
    ]),
  );
  return loaded.get(name);
}
