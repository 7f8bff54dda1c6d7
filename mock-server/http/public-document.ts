import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { PUBLIC_DOCUMENT } from '../../openapi/documents.js';

/**
 * The document as written (comments kept in the YAML), its `servers` the mock's own public root.
 * A module of its own, imported on the first request for the document (reference-routes.ts), so
 * the YAML library never loads at start.
 */
export function publicDocument(publicBaseUrl: string): { json: string; yaml: string } {
  const doc = parseDocument(readFileSync(PUBLIC_DOCUMENT, 'utf8'));
  doc.set('servers', doc.createNode([{ url: publicBaseUrl, description: 'This mock' }]));
  return { yaml: doc.toString(), json: JSON.stringify(doc.toJS(), null, 2) };
}
