import { describe, expect, it } from 'vitest';
import { ConsistencyLedger } from './consistency.js';

const T0 = Date.parse('2026-11-25T12:00:00.000Z');
const image = (fields: Record<string, unknown> = {}) => ({
  id: '3f1c2a6e-8b7d-4c55-9a0e-6d2b1f4e9a11',
  name: 'cells.tif',
  size: 10,
  image_type: 'TIFF',
  upload_status: 'uploading',
  created_at: '2026-11-25T12:00:00.100Z',
  processed_at: null,
  ...fields,
});

describe('the consistency ledger of one check', () => {
  it('accepts answers that agree with the request, each other and the clock', () => {
    const ledger = new ConsistencyLedger();
    expect(
      ledger.observe(
        'createImage',
        { name: 'cells.tif', size: 10, metadata: { well: 'B3' } },
        { ...image(), metadata: { well: 'B3' } },
        T0,
        T0 + 200,
      ),
    ).toEqual([]);
    const ready = image({ upload_status: 'ready', processed_at: '2026-11-25T12:00:01.000Z', shape: [4, 4] });
    expect(ledger.observe('getImage', undefined, ready, T0 + 1000, T0 + 1100)).toEqual([]);
  });

  it('names an echoed field that differs from the request', () => {
    const ledger = new ConsistencyLedger();
    const [problem] = ledger.observe(
      'uploadImage',
      { name: 'cells.tif', size: 10 },
      { image: image({ name: 'cells.tifx' }) },
      T0,
      T0 + 200,
    );
    expect(problem).toMatch(/uploadImage: image .* name is "cells.tifx", the request sent "cells.tif"/);
    expect(
      ledger.observe(
        'createImage',
        { name: 'cells.tif', size: 10, metadata: { a: 1 } },
        image(),
        T0,
        T0 + 1,
      )[0],
    ).toMatch(/metadata is undefined/);
  });

  it('names a settled field that changed, and a status or count that went back', () => {
    const ledger = new ConsistencyLedger();
    ledger.observe('getImage', undefined, image({ upload_status: 'ready' }), T0, T0 + 500);
    const problems = ledger.observe(
      'getImage',
      undefined,
      image({ upload_status: 'processing', size: 11 }),
      T0,
      T0 + 500,
    );
    expect(problems.join('\n')).toMatch(/size is 11, an earlier answer said 10/);
    expect(problems.join('\n')).toMatch(/upload_status went back from ready to processing/);
    const share = { id: 's', segmentation_id: 'g', view_count: 2, created_at: '2026-11-25T12:00:00.000Z' };
    ledger.observe('getShare', undefined, share, T0, T0 + 500);
    expect(ledger.observe('getShare', undefined, { ...share, view_count: 1 }, T0, T0 + 500)[0]).toMatch(
      /view_count went down from 2 to 1/,
    );
  });

  it('names a timestamp in the future, before its created_at, or before the request that created it', () => {
    const ledger = new ConsistencyLedger();
    const late = image({ processed_at: '2026-11-25T14:00:00.000Z' });
    expect(ledger.observe('getImage', undefined, late, T0, T0 + 500)[0]).toMatch(
      /processed_at .* is in the future/,
    );
    const early = image({ id: 'b', processed_at: '2026-11-25T11:00:00.000Z' });
    expect(ledger.observe('getImage', undefined, early, T0, T0 + 500)[0]).toMatch(/is before its created_at/);
    const old = image({ id: 'c', created_at: '2026-11-25T11:00:00.000Z' });
    expect(ledger.observe('createImage', { name: 'cells.tif', size: 10 }, old, T0, T0 + 500)[0]).toMatch(
      /before the request that created it/,
    );
  });

  it('names an answer about another object than the one asked for', () => {
    const ledger = new ConsistencyLedger();
    const asked = { image_id: '3f1c2a6e-8b7d-4c55-9a0e-6d2b1f4e9a11' };
    expect(ledger.observe('getImage', undefined, image(), T0, T0 + 5, asked)).toEqual([]);
    const other = image({ id: '7a1c2a6e-8b7d-4c55-9a0e-6d2b1f4e9a11' });
    expect(ledger.observe('getImage', undefined, other, T0, T0 + 5, asked)[0]).toMatch(
      /getImage: asked for image_id 3f1c.*, the answer's id is 7a1c/,
    );
  });

  it('takes an id asked or sent in its urn:uuid: form, or in upper case, as the canonical id it names', () => {
    const ledger = new ConsistencyLedger();
    const urn = { image_id: 'urn:uuid:3F1C2A6E-8B7D-4C55-9A0E-6D2B1F4E9A11' };
    expect(ledger.observe('getImage', undefined, image(), T0, T0 + 5, urn)).toEqual([]);
    const segmentation = '919f3487-34af-4a8b-8144-94cf6a3cf6e4';
    const share = {
      id: 'd9f136f2-4cc5-4b22-96f0-2746b88b56f0',
      segmentation_id: segmentation,
      access: 'anyone_with_link',
      role: 'viewer',
      url: 'http://t/share/x',
      view_count: 0,
      last_viewed_at: null,
      created_at: '2026-11-25T12:00:00.000Z',
      revoked_at: null,
    };
    expect(
      ledger.observe('createShare', { segmentation_id: `urn:uuid:${segmentation}` }, share, T0, T0 + 5),
    ).toEqual([]);
  });

  it('names a settled field that appears or goes while the state stays', () => {
    const ledger = new ConsistencyLedger();
    const ready = image({ upload_status: 'ready', processed_at: '2026-11-25T12:00:01.000Z' });
    ledger.observe(
      'uploadImage',
      { name: 'cells.tif', size: 10 },
      { image: { ...ready, processed_at: undefined } },
      T0,
      T0 + 5,
    );
    expect(ledger.observe('getUpload', undefined, ready, T0, T0 + 5).join('\n')).toMatch(
      /processed_at is "2026-11-25T12:00:01.000Z", an earlier answer in the same upload_status \(ready\) said null/,
    );
    // a new state may bring it: processing, then ready with processed_at
    const fresh = new ConsistencyLedger();
    fresh.observe('getImage', undefined, image({ upload_status: 'processing' }), T0, T0 + 5);
    expect(fresh.observe('getImage', undefined, ready, T0, T0 + 5)).toEqual([]);
  });

  it("names a share's last view that moved, or went, while its view count stayed", () => {
    const ledger = new ConsistencyLedger();
    const share = {
      id: 's',
      segmentation_id: 'g',
      view_count: 2,
      last_viewed_at: '2026-11-25T12:00:00.300Z',
      created_at: '2026-11-25T12:00:00.000Z',
    };
    ledger.observe('getShare', undefined, share, T0, T0 + 500);
    const revoked = { ...share, revoked_at: '2026-11-25T12:00:00.400Z' };
    expect(
      ledger.observe('revokeShare', undefined, { ...revoked, last_viewed_at: undefined }, T0, T0 + 500)[0],
    ).toMatch(/last_viewed_at is null, an earlier answer with the same view_count \(2\) said/);
    const viewed = { ...revoked, view_count: 3, last_viewed_at: '2026-11-25T12:00:00.450Z' };
    expect(ledger.observe('getShare', undefined, viewed, T0, T0 + 500)).toEqual([]);
  });

  it('holds every later answer about an object against the request that created it', () => {
    const ledger = new ConsistencyLedger();
    const id = '8a0ad41c-5512-4c7c-a219-c70ab5e9e9cf';
    ledger.observe(
      'createPrediction',
      { image_id: 'i', model_id: 'm' },
      { prediction_id: id, status: 'submitted' },
      T0,
      T0 + 5,
    );
    const prediction = { prediction_id: id, image_id: 'i', model_id: 'm', status: 'SUBMITTED' };
    expect(
      ledger.observe(
        'getPrediction',
        undefined,
        { ...prediction, created_at: '2026-11-25T12:00:00.010Z' },
        T0,
        T0 + 50,
      ),
    ).toEqual([]);
    expect(
      ledger
        .observe(
          'getPrediction',
          undefined,
          { ...prediction, created_at: '2026-11-25T11:00:00.010Z' },
          T0,
          T0 + 50,
        )
        .join('\n'),
    ).toMatch(/created_at .* is before the request that created it/);
  });
});
