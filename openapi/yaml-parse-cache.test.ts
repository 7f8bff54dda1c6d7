import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseYamlCached } from './yaml-parse-cache.js';

const folders: string[] = [];
const newFolder = () => {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'yaml-parse-cache-'));
  folders.push(folder);
  return folder;
};
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('parseYamlCached', () => {
  it('keeps a parse on disk and reads it back in another process instead of parsing again', () => {
    const folder = newFolder();
    const text = 'openapi: 3.1.0\ninfo: { title: first }\n';
    expect(parseYamlCached(text, folder)).toEqual({ openapi: '3.1.0', info: { title: 'first' } });
    const files = readdirSync(folder);
    expect(files).toHaveLength(1);
    // What a later process finds on disk is what it returns: marked here to tell it from a parse.
    const cached = path.join(folder, files[0]);
    expect(JSON.parse(readFileSync(cached, 'utf8'))).toEqual({ openapi: '3.1.0', info: { title: 'first' } });
    writeFileSync(cached, JSON.stringify({ openapi: '3.1.0', info: { title: 'from the cache file' } }));
    const other = newFolder();
    writeFileSync(path.join(other, files[0]), readFileSync(cached));
    expect(parseYamlCached(text, other)).toEqual({
      openapi: '3.1.0',
      info: { title: 'from the cache file' },
    });
  });

  it('parses a changed text afresh, never answering the parse of the old one', () => {
    const folder = newFolder();
    parseYamlCached('a: 1\n', folder);
    expect(parseYamlCached('a: 2\n', folder)).toEqual({ a: 2 });
    expect(readdirSync(folder)).toHaveLength(2);
  });

  it('parses again when the file on disk is not JSON (a torn or foreign write)', () => {
    const folder = newFolder();
    const text = 'list: [1, 2, 3]\n';
    parseYamlCached(text, folder);
    const [file] = readdirSync(folder);
    const other = newFolder();
    writeFileSync(path.join(other, file), '{"list": [1, 2');
    expect(parseYamlCached(text, other)).toEqual({ list: [1, 2, 3] });
    expect(JSON.parse(readFileSync(path.join(other, file), 'utf8'))).toEqual({ list: [1, 2, 3] });
  });
});
