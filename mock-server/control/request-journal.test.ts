import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../domain/control-records.js';
import { memoryJournal } from '../stores/memory/journal-ring.js';
import { RequestJournal } from './request-journal.js';

const entry = (requestBody: unknown, responseBody: unknown): JournalEntry => ({
  at: '2026-01-01T00:00:00.000Z',
  requestId: 'r1',
  method: 'POST',
  path: '/api/v1/image',
  operationId: 'createImage',
  organizationId: 'org',
  status: 422,
  durationMs: 1,
  requestBody,
  responseBody,
  fault: null,
});

const lengthOf = (body: unknown) => JSON.stringify(body).length;

describe('the request journal', () => {
  it('keeps a long body cut to its first 4,096 characters, with the whole request body shape', async () => {
    const table = memoryJournal();
    const journal = new RequestJournal(table);
    const request = { name: 'a.tif', metadata: { note: 'x'.repeat(1_000_000), n: 1 } };
    const response = { detail: [{ input: request.metadata }] };
    await journal.record(entry(request, response), {
      request: lengthOf(request),
      response: lengthOf(response),
    });

    // What the table holds is the cut text, not the megabyte: the memory a client's body takes.
    const [kept] = await table.query({});
    expect(typeof kept.requestBody).toBe('string');
    expect((kept.requestBody as string).length).toBeLessThan(4200);
    expect((kept.responseBody as string).length).toBeLessThan(4200);

    const [read] = await journal.query({});
    expect(read.requestBody).toBe(
      `${JSON.stringify(request).slice(0, 4096)}… (${lengthOf(request)} characters)`,
    );
    expect(read.requestShape).toEqual({ name: 'string', metadata: { note: 'string', n: 'integer' } });
  });

  it('keeps a body within the limit whole, its shape taken when read', async () => {
    const journal = new RequestJournal(memoryJournal());
    const request = { image_id: 'i', model_id: 'm' };
    await journal.record(entry(request, { status: 'SUBMITTED' }), { request: 40, response: 24 });
    const [read] = await journal.query({});
    expect(read.requestBody).toEqual(request);
    expect(read.responseBody).toEqual({ status: 'SUBMITTED' });
    expect(read.requestShape).toEqual({ image_id: 'string', model_id: 'string' });
  });
});

describe('the request journal, watched or not', () => {
  it("answers a batching table's own promise while nobody watches: the request log watches one per batch", async () => {
    const batch = Promise.resolve();
    const journal = new RequestJournal({ ...memoryJournal(), record: () => batch });
    const small = { request: 2, response: 2 };
    expect(journal.record(entry({}, {}), small)).toBe(batch);
    const seen: string[] = [];
    const unwatch = journal.watch((read) => seen.push(read.requestId));
    await journal.record(entry({}, {}), small);
    unwatch();
    expect(seen).toEqual(['r1']);
    expect(journal.record(entry({}, {}), small)).toBe(batch);
  });

  it('is not failed by a watcher that throws: the entry was kept, and the other watchers see it', async () => {
    const journal = new RequestJournal(memoryJournal());
    const seen: string[] = [];
    journal.watch(() => {
      throw new Error('a watcher of its own');
    });
    journal.watch((read) => seen.push(read.requestId));
    await journal.record(entry({}, {}), { request: 2, response: 2 });
    expect(seen).toEqual(['r1']);
  });
});
