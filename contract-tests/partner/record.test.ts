import { describe, expect, it } from 'vitest';
import { sharedContract } from '../harness/openapi-contract.js';
import { NAMESPACE } from './pact-file.js';
import { recordContract, type JournalEntry } from './record.js';

const IMAGE = '3f1c2a6e-8b7d-4c55-9a0e-6d2b1f4e9a11';
const ORG = 'bf4d51a1-7a32-4109-b955-46a2a3ad11f0';

function entry(
  at: string,
  method: string,
  path: string,
  operationId: string,
  status: number,
  extra: Partial<JournalEntry> = {},
): JournalEntry {
  return {
    at,
    request_id: at,
    method,
    path,
    operation_id: operationId,
    organization_id: ORG,
    status,
    ...extra,
  };
}

const image = (upload_status: string) => ({
  id: IMAGE,
  name: 'plate.tif',
  image_type: 'TIFF',
  size: 10,
  shape: null,
  upload_status,
  created_at: '2026-11-25T10:00:00.000Z',
  processed_at: null,
  metadata: { plate: 'A1' },
  upload: null,
});

const record = (journal: JournalEntry[], since?: string) =>
  recordContract(sharedContract(), journal, { consumer: 'c', recordedFrom: 'http://mock', since });

describe('recording a contract from a journal', () => {
  const journal = [
    entry('2026-11-25T09:59:00.000Z', 'GET', '/api/v1/models', 'listModels', 200, { response_body: [] }),
    entry('2026-11-25T10:00:00.000Z', 'POST', '/api/v1/image', 'createImage', 200, {
      request_media_type: 'application/json',
      request_body: { name: 'plate.tif', size: 10, metadata: { plate: 'A1' } },
      request_shape: { name: 'string', size: 'integer', metadata: { plate: 'string' } },
      response_body: image('uploading'),
    }),
    entry('2026-11-25T10:00:01.000Z', 'GET', `/api/v1/upload/${IMAGE}`, 'getUpload', 200, {
      response_body: image('processing'),
    }),
    entry('2026-11-25T10:00:02.000Z', 'GET', `/api/v1/upload/${IMAGE}`, 'getUpload', 200, {
      response_body: image('ready'),
    }),
    entry('2026-11-25T10:00:03.000Z', 'GET', `/api/v1/upload/${IMAGE}`, 'getUpload', 503, {
      fault: 'f1',
      response_body: { detail: 'x' },
    }),
    entry('2026-11-25T10:00:04.000Z', 'GET', '/__mock/health', 'mockHealth', 200),
  ];

  it('keeps the requests answered since the client run began, and only the public interface', () => {
    expect(record(journal, '2026-11-25T10:00:00.000Z').interactions.map((i) => i.key)).toEqual([
      '001-createImage',
      '002-getUpload',
      '003-getUpload',
    ]);
  });

  it('keeps a poll once, waiting for its settled state; a read that met a fault stays apart', () => {
    const [, poll, fault] = record(journal, '2026-11-25T10:00:00.000Z').interactions;
    expect(poll.comments[NAMESPACE]).toMatchObject({
      recordedRequests: 2,
      pollUntil: { '$.upload_status': 'ready' },
    });
    expect(poll.request.generators?.path?.expression).toBe('/api/v1/upload/${image_id}');
    expect(fault.providerStates).toEqual([
      {
        name: 'getUpload answers 503 once (an injected fault)',
        params: { operation_id: 'getUpload', status: 503 },
      },
    ]);
  });

  it('relies on the fields the document defines, never on a free-form one or a value seen only as null', () => {
    const created = record(journal).interactions[1];
    const rules = Object.keys(created.response.matchingRules?.body ?? {});
    expect(rules).toContain('$.upload_status');
    expect(rules.filter((r) => r.startsWith('$.metadata'))).toEqual([]);
    expect(rules).not.toContain('$.shape');
    expect(rules).not.toContain('$.processed_at');
    expect(created.response.body?.content).not.toHaveProperty('processed_at');
  });

  it('relies on a field the document declares nullable as its type or null, never its recorded value alone', () => {
    const processed = { ...image('ready'), shape: [256, 256], processed_at: '2026-11-25T10:00:02.000Z' };
    const ready = record([
      entry('2026-11-25T10:00:02.000Z', 'GET', `/api/v1/image/${IMAGE}`, 'getImage', 200, {
        response_body: processed,
      }),
    ]).interactions[0];
    const rules = ready.response.matchingRules?.body ?? {};
    const typeOrNull = { combine: 'OR', matchers: [{ match: 'type' }, { match: 'null' }] };
    expect(rules['$.processed_at']).toEqual(typeOrNull);
    // A nullable array carries the rule itself, so its items are not missed when it is null.
    expect(rules['$.shape']).toEqual(typeOrNull);
    expect(rules['$.shape[*]']).toEqual({ combine: 'AND', matchers: [{ match: 'type' }] });
    expect(rules['$.created_at']).toEqual({ combine: 'AND', matchers: [{ match: 'type' }] });
  });

  it('narrows to the fields the partner names for an operation (--fields)', () => {
    const narrowed = recordContract(sharedContract(), journal, {
      consumer: 'c',
      recordedFrom: 'http://mock',
      fields: { createImage: ['$.id'] },
    });
    expect(Object.keys(narrowed.interactions[1].response.matchingRules!.body!)).toEqual(['$.id']);
    expect(narrowed.interactions[1].response.body?.content).toEqual({ id: IMAGE });
  });
});
