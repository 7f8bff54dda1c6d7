import { describe, expect, it } from 'vitest';
import { CONTROL_DOCUMENT, PUBLIC_DOCUMENT, readDocument, servedDocument } from './documents.js';

type Json = Record<string, unknown>;
/** Both documents as the mock serves them (the control document's references into the public one made local). */
const doc = servedDocument() as Json;
const publicDoc = readDocument(PUBLIC_DOCUMENT) as Json;
const controlDoc = readDocument(CONTROL_DOCUMENT) as Json;

function deref(value: Json): Json {
  let current = value;
  while (typeof current.$ref === 'string') {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, key) => (node as Json)[key.replace(/~1/g, '/')], doc) as Json;
  }
  return current;
}

function operations(): Array<{ id: string; op: Json }> {
  const out: Array<{ id: string; op: Json }> = [];
  for (const item of Object.values(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(item))
      if (method !== 'parameters') out.push({ id: String(op.operationId), op });
  }
  return out;
}

describe('the OpenAPI documents', () => {
  it('are OpenAPI 3.1.0 describing interface v1.1.0', () => {
    for (const each of [publicDoc, controlDoc]) {
      expect(each.openapi).toBe('3.1.0');
      expect((each.info as Json).version).toBe('1.1.0');
    }
  });

  it('gives every JSON, CSV and GeoJSON response an example, so a spec-only mock answers plausibly', () => {
    const missing: string[] = [];
    for (const { id, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const content = (deref(response).content ?? {}) as Record<string, Json>;
        for (const [media, body] of Object.entries(content)) {
          if (!/json|csv/.test(media)) continue;
          const schema = body.schema ? deref(body.schema as Json) : {};
          if (body.example === undefined && body.examples === undefined && schema.example === undefined)
            missing.push(`${id} ${status} ${media}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('marks every choice where the interface is silent with a reason', () => {
    const unexplained: string[] = [];
    const walk = (node: unknown, where: string) => {
      if (!node || typeof node !== 'object') return;
      const record = node as Json;
      if (record['x-assumed'] === true && typeof record['x-assumed-reason'] !== 'string')
        unexplained.push(where);
      for (const [key, value] of Object.entries(record)) walk(value, `${where}/${key}`);
    };
    walk(publicDoc, 'openapi.yaml#');
    walk(controlDoc, 'mock-control.yaml#');
    expect(unexplained).toEqual([]);
  });

  it('lets responses carry extra fields but refuses server-controlled fields on image creation', () => {
    const schemas = (doc.components as Json).schemas as Record<string, Json>;
    for (const name of [
      'Image',
      'Prediction',
      'PredictionAck',
      'Share',
      'UploadResponse',
      'UploadPlan',
      'Model',
    ]) {
      expect(schemas[name].additionalProperties, name).not.toBe(false);
    }
    expect(schemas.CreateImageRequest.additionalProperties).toBe(false);
  });
});
