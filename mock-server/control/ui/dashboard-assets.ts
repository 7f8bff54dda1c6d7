import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { INSTALL_ROOT } from '../../../openapi/documents.js';

export interface DashboardAsset {
  contentType: string;
  body: Buffer;
}

const CONTENT_TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.js': 'text/javascript; charset=utf-8',
};

// The build copies the assets to the same place under dist/ (bin/build-dist.js).
const ASSETS_FOLDER = path.join(INSTALL_ROOT, 'mock-server', 'control', 'ui', 'assets');

let loaded: Map<string, DashboardAsset> | undefined;

/**
 * The page's client files, served from the package (no CDN, works offline): the folder's files of
 * the types above, read once. A request names one of these or gets a 404, so no path from a URL
 * ever reaches the file system.
 */
export function dashboardAsset(name: string): DashboardAsset | undefined {
  loaded ??= new Map(
    readdirSync(ASSETS_FOLDER)
      .filter((file) => CONTENT_TYPES[path.extname(file)])
      .map((file) => [
        file,
        {
          contentType: CONTENT_TYPES[path.extname(file)],
          body: readFileSync(path.join(ASSETS_FOLDER, file)),
        },
      ]),
  );
  return loaded.get(name);
}
