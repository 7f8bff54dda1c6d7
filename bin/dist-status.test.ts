import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { builtIsCurrent } from './dist-status.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

const BUILT_AT = new Date('2026-11-23T05:00:00Z');
const EARLIER = new Date('2026-11-23T04:00:00Z');
const LATER = new Date('2026-11-23T06:00:00Z');

/** A package folder with two sources and a build listing them, everything older than the build. */
function checkout({ withSources = true } = {}) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'dist-status-'));
  roots.push(root);
  const write = (file: string, text: string, time: Date) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
    utimesSync(path.join(root, file), time, time);
  };
  if (withSources) {
    write('mock-server/main.ts', 'export {};', EARLIER);
    write('openapi/openapi.yaml', 'openapi: 3.1.0', EARLIER);
  }
  const sources = ['mock-server/main.ts', 'openapi/openapi.yaml'];
  write('dist/.built', JSON.stringify({ builtAt: BUILT_AT.toISOString(), sources }), BUILT_AT);
  return { root, url: pathToFileURL(`${root}/`), write };
}

describe('builtIsCurrent: whether the launcher may run dist/ for the sources', () => {
  it('is current when every listed source is older than the build', () => {
    expect(builtIsCurrent(checkout().url)).toBe(true);
  });

  it('is stale once a listed source changed after the build', () => {
    const { url, write } = checkout();
    write('openapi/openapi.yaml', 'openapi: 3.1.0\n# edited', LATER);
    expect(builtIsCurrent(url)).toBe(false);
  });

  it('is stale when a listed source is gone', () => {
    const { root, url } = checkout();
    rmSync(path.join(root, 'mock-server', 'main.ts'));
    expect(builtIsCurrent(url)).toBe(false);
  });

  it('is stale without a build, or with a stamp from an older build that lists nothing', () => {
    const { root, url, write } = checkout();
    write('dist/.built', `${BUILT_AT.toISOString()}\n`, BUILT_AT);
    expect(builtIsCurrent(url)).toBe(false);
    rmSync(path.join(root, 'dist'), { recursive: true });
    expect(builtIsCurrent(url)).toBe(false);
  });

  it('is current in an installed package, which ships dist/ without the sources', () => {
    expect(builtIsCurrent(checkout({ withSources: false }).url)).toBe(true);
  });
});
