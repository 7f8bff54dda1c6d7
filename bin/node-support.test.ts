import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { unsupportedNode } from './node-support.js';

const REPO = new URL('../', import.meta.url);
const folders: string[] = [];
afterAll(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

function packageWithEngines(range: string): URL {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'node-support-'));
  folders.push(folder);
  writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: 'pkg', engines: { node: range } }));
  return pathToFileURL(`${folder}/`);
}

describe('unsupportedNode', () => {
  const root = packageWithEngines('>=22.19');

  it.each(['20.20.2', '22.18.9', '21.7.3'])('refuses Node %s in one line naming both versions', (version) => {
    const reason = unsupportedNode(root, version);
    expect(reason).toContain('needs Node 22.19.0 or newer');
    expect(reason).toContain(`this is Node ${version}`);
    expect(reason).not.toContain('\n');
  });

  it.each(['22.19.0', '22.23.3', '23.0.0', '24.11.1'])('accepts Node %s', (version) => {
    expect(unsupportedNode(root, version)).toBeUndefined();
  });

  it('reads its minimum from package.json, and says so when it cannot', () => {
    expect(unsupportedNode(packageWithEngines('>=24'), '22.23.3')).toContain('needs Node 24.0.0');
    expect(() => unsupportedNode(packageWithEngines('^22 || ^24'), '22.23.3')).toThrow(/engines.node/);
  });

  it('accepts the Node these tests run on, by the real package.json', () => {
    expect(unsupportedNode(REPO)).toBeUndefined();
    expect(unsupportedNode(REPO, '20.20.2')).toContain('cellseg-mock needs Node 22.19.0');
  });
});

/** An older Node on this machine (Debian's or the image's default), if there is one. */
function olderNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    try {
      const version = execFileSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
      if (Number(version.split('.')[0]) < 22) return candidate;
    } catch {
      // not there
    }
  }
  return undefined;
}

const older = olderNode();

describe.skipIf(!older)(`on an older Node (${older ?? 'none on this machine'})`, () => {
  it('`cellseg-mock start` says in one line which Node it needs, with no stack trace', () => {
    const run = spawnSync(older!, [new URL('cellseg-mock.js', import.meta.url).pathname, 'start'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringContaining('needs Node 22.19.0 or newer')]);
  });
});
