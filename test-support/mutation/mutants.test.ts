import { describe, expect, it } from 'vitest';
import { sharedContract } from '../../contract-tests/harness/openapi-contract.js';
import { UNOBSERVABLE } from '../../contract-tests/unobservable.js';
import { documentedResponses } from './document-mutants.js';
import { changeAt, dropAt, restoreAt, swapAt, valueChanges, valuesAt } from './json-edits.js';
import { allMutants, sampleMutants } from './mutants.js';
import { fieldName, responseFields } from './response-fields.js';

describe('the mutants generated from the document', () => {
  const mutants = allMutants();
  const ids = mutants.map((m) => m.id);

  it('are hundreds, with stable ids in a stable order', () => {
    expect(mutants.length).toBeGreaterThanOrEqual(300);
    expect(allMutants().map((m) => m.id)).toEqual(ids);
    expect(ids).toContain('getImage.200.body.upload_status:enum-neighbour');
    expect(ids).toContain('getPrediction.200.body.created_at:date-time+1h');
    expect(ids).toContain('getShare.200.body.view_count:stale');
    expect(ids).toContain('createImage.200.body.upload.urls[].part_number:number');
    expect(ids).toContain('completeUpload.202.status:200');
    expect(ids).toContain('exportMeasurementsCsv.200.header.content-disposition:drop');
    expect(ids).toContain('exportMeasurementsCsv.200.csv.area_px:change');
    expect(ids).toContain('exportRoisZip.200.zip.entry:drop');
    expect(ids).toContain('exportOverlayPng.200.png.column:invert');
    expect(ids).toContain('sabotage:cleanup-5xx');
    expect(ids).toContain('exportRoisZip.304.header.etag:drop');
    // a 304 has no content, so no content type to get wrong
    expect(ids).not.toContain('exportRoisZip.304.header.content-type:octet-stream');
  });

  it('drop every field of every documented JSON answer, nested ones included', () => {
    const document = sharedContract().doc;
    for (const response of documentedResponses().filter((r) => r.schema))
      for (const field of responseFields(document, response.schema).filter((f) => f.path.at(-1) !== '[]'))
        expect(ids).toContain(`${response.operation}.${response.status}.body.${fieldName(field.path)}:drop`);
  });

  it('are each excused by the clause catalogue only through an entry that names some of them', () => {
    for (const entry of UNOBSERVABLE)
      expect(
        ids.some((id) => entry.mutants.test(id)),
        String(entry.mutants),
      ).toBe(true);
  });

  it('are sampled the same way for the same seed', () => {
    const a = sampleMutants(mutants, 20, 7).map((m) => m.id);
    expect(a).toHaveLength(20);
    expect(sampleMutants(mutants, 20, 7).map((m) => m.id)).toEqual(a);
    expect(sampleMutants(mutants, 20, 8).map((m) => m.id)).not.toEqual(a);
  });
});

describe('the edits of a JSON body', () => {
  const body = () => ({
    id: '3f1c2a6e-8b7d-4c55-9a0e-6d2b1f4e9a11',
    created_at: '2026-11-22T10:00:00.000Z',
    processed_at: '2026-11-22T10:00:01.250Z',
    upload: { urls: [{ part_number: 1 }, { part_number: 2 }] },
  });

  it('change every element under [] and report whether anything changed', () => {
    const b = body();
    expect(changeAt(b, ['upload', 'urls', '[]', 'part_number'], (v) => (v as number) + 1)).toBe(true);
    expect(b.upload.urls).toEqual([{ part_number: 2 }, { part_number: 3 }]);
    expect(changeAt(b, ['missing'], () => 1)).toBe(false);
  });

  it('change values within their type', () => {
    const uuid = valueChanges({
      path: ['id'],
      types: new Set(['string']),
      format: 'uuid',
      required: true,
    }).uuid;
    expect(uuid('3f1c2a6e-8b7d-4c55-9a0e-6d2b1f4e9a11')).toBe('3f1c2a6e-8b7d-4c55-9a0e-6d2b1f4e9a12');
    const time = valueChanges({
      path: ['t'],
      types: new Set(['string']),
      format: 'date-time',
      required: true,
    });
    expect(time['date-time-1h']('2026-11-22T10:00:00.000Z')).toBe('2026-11-22T09:00:00.000Z');
    const status = valueChanges({
      path: ['s'],
      types: new Set(['string']),
      values: ['a', 'b', 'c'],
      required: true,
    });
    expect(status['enum-neighbour']('c')).toBe('a');
  });

  it('drop, swap and restore stale values', () => {
    const b = body();
    expect(swapAt(b, ['created_at'], ['processed_at'])).toBe(true);
    expect(b.created_at).toBe('2026-11-22T10:00:01.250Z');
    const old = valuesAt(body(), ['processed_at']);
    expect(restoreAt(b, ['processed_at'], old)).toBe(true);
    expect(b.processed_at).toBe('2026-11-22T10:00:01.250Z');
    expect(dropAt(b, ['processed_at'])).toBe(true);
    expect('processed_at' in b).toBe(false);
  });
});
