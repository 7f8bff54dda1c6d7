import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONTROL_DOCUMENT, PUBLIC_DOCUMENT, readDocument } from './documents.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const interfaceCopy = path.join(here, 'interface', 'api-interface.md');
const sharedInterface = path.resolve(here, '../../shared/api-interface.md');

/** `METHOD /path` of every operation the interface names, read from its endpoint headings, tables and prose. */
export function interfaceOperations(markdown: string): string[] {
  const found = new Set<string>();
  const pattern = /\b(GET|POST|PUT|PATCH|DELETE)\s+`?(\/api\/v1\/[^`\s]+)`/g;
  for (const match of markdown.matchAll(pattern)) found.add(`${match[1]} ${match[2]}`);
  return [...found].sort();
}

function documentOperations(file = PUBLIC_DOCUMENT): Set<string> {
  const doc = readDocument(file);
  const ops = new Set<string>();
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const method of Object.keys(item))
      if (method !== 'parameters') ops.add(`${method.toUpperCase()} ${p}`);
  }
  return ops;
}

describe('the OpenAPI document covers the interface', () => {
  const listed = interfaceOperations(readFileSync(interfaceCopy, 'utf8'));

  it('finds the operations the interface names', () => {
    // 17 named with method and path: upload x5, image get/delete, models, predict x2, exports x4, shares x3
    expect(listed.length).toBeGreaterThanOrEqual(17);
    expect(listed).toContain('DELETE /api/v1/shares/{share_id}');
  });

  it('has every one of them in the public document', () => {
    const documented = documentOperations();
    const missing = listed.filter((op) => !documented.has(op));
    expect(missing).toEqual([]);
  });

  it('leaves none of them to the control document', () => {
    const control = documentOperations(CONTROL_DOCUMENT);
    expect(listed.filter((op) => control.has(op))).toEqual([]);
  });

  it('has the image-record creation the interface leaves unnamed (DESIGN.md: POST /api/v1/image)', () => {
    expect(documentOperations().has('POST /api/v1/image')).toBe(true);
  });

  it.runIf(existsSync(sharedInterface))(
    'keeps its copy of the interface identical to shared/api-interface.md',
    () => {
      expect(readFileSync(interfaceCopy, 'utf8')).toBe(readFileSync(sharedInterface, 'utf8'));
    },
  );
});
