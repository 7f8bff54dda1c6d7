/**
 * Past the entries a run keeps whole, what is kept still gives each case the judgement every entry
 * would: whether it was reached, the request that shows it met, and how the client reacted.
 */
import { expect, it } from 'vitest';
import { READINESS_CASES } from '../control/readiness/readiness-cases.js';
import { CASE_ARMING } from './case-arming.js';
import { clientReaction } from './client-reaction.js';
import { clientRequests, type JournalEntry } from './journal-entry.js';
import { KeptJournal } from './kept-journal.js';

const WHOLE = 10_000;
let clock = 0;

function entry(operationId: string, status: number, extra: Partial<JournalEntry> = {}): JournalEntry {
  clock += 10;
  return {
    at: new Date(Date.UTC(2026, 10, 29) + clock).toISOString(),
    request_id: `r${clock}`,
    method: 'GET',
    path: `/api/v1/${operationId}`,
    operation_id: operationId,
    status,
    duration_ms: 5,
    fault: null,
    ...extra,
  };
}
const poll = (id: string, status: string, extra: Partial<JournalEntry> = {}) =>
  entry('getPrediction', 200, { path: `/api/v1/predict/${id}`, response_body: { status }, ...extra });

/** A client's ordinary traffic: lists, reads, polls of predictions that complete. */
const ordinary = (n: number) =>
  Array.from(
    { length: n },
    (_, i) => [entry('listImages', 200), entry('getImage', 200), poll(`q${i}`, 'COMPLETED')][i % 3],
  );

/** Then what each case's judgement reads, with ordinary traffic between. */
function cases(): JournalEntry[] {
  const polls = Array.from({ length: 12 }, () => poll('p1', 'RUNNING'));
  const refused = (operationId: string, detail: string) =>
    entry(operationId, 402, { method: 'POST', response_body: { detail } });
  return [
    refused('uploadImage', 'storage cap reached'),
    ...ordinary(3),
    refused('uploadImage', 'storage cap reached'),
    refused('createPrediction', 'monthly analysis cap reached'),
    ...polls,
    poll('p1', 'COMPLETED'),
    ...[1, 2, 3].map(() => poll('p2', 'FAILED')),
    poll('p0', 'RUNNING', { status: 429, fault: 'f1' }),
    ...ordinary(2),
    poll('p0', 'COMPLETED'),
    entry('getImage', 503, { fault: 'f2' }),
    entry('getImage', 200),
    entry('getShare', 0, { fault: 'f3' }),
    entry('getShare', 200),
    poll('p3', 'RUNNING', { status: 0, duration_ms: 12_000, fault: 'f4' }),
    poll('p3', 'COMPLETED'),
    entry('uploadImage', 200, { method: 'POST', response_body: { upload: { urls: [] } } }),
    entry('getUpload', 200),
    entry('completeUpload', 422, { method: 'POST', response_body: { detail: 'Part 1 was not uploaded.' } }),
    entry('getShare', 200, { response_body: { revoked_at: '2026-11-29T00:00:00Z' } }),
    entry('viewSharePage', 404),
    ...ordinary(3),
  ];
}

it('a run past its whole entries judges each case as if every entry were kept', () => {
  // The uploads and predictions first met early: the 402s after the whole entries are no first calls.
  const early = [
    entry('uploadImage', 201, { method: 'POST' }),
    entry('createPrediction', 202, { method: 'POST' }),
  ];
  const all = [...early, ...ordinary(WHOLE + 3000), ...cases()];
  for (const c of READINESS_CASES) {
    const kept = new KeptJournal(c, WHOLE);
    for (const e of all) kept.add(e);
    const [every, some] = [all, kept.entries()].map(clientRequests);
    expect(c.metBy(every), c.id).toBeDefined();
    expect(c.metBy(some), c.id).toEqual(c.metBy(every));
    expect(clientReaction(c.id, some), c.id).toEqual(clientReaction(c.id, every));
    const arming = CASE_ARMING[c.id];
    expect(arming.missedAfterActing?.(some), c.id).toEqual(arming.missedAfterActing?.(every));
    const reached = (requests: typeof every) =>
      requests.some((r) => arming.reachedBy?.includes(r.operationId ?? '') || r.fault);
    expect(reached(some), c.id).toBe(reached(every));
    // Bounded: past the whole entries, what the case reads (every poll for many-polls), not the rest.
    expect(some.length, c.id).toBeLessThan(WHOLE + (c.id === 'many-polls' ? 1100 : 100));
  }
});

it("a baseline past its whole entries keeps each operation's first call not answered 404", () => {
  const kept = new KeptJournal(undefined, 10);
  for (const e of [...ordinary(20), entry('getShare', 404), ...ordinary(20), entry('getShare', 200)])
    kept.add(e);
  expect(
    kept
      .entries()
      .filter((e) => e.operation_id === 'getShare')
      .map((e) => e.status),
  ).toEqual([404, 200]);
});
