import { sharedContract } from '../harness/openapi-contract.js';
import { describeTransportError } from '../harness/transport-errors.js';
import type { PartnerContract } from './pact-file.js';
import { recordContract, type JournalEntry, type RecordOptions } from './record.js';

/** The most the journal answers at once (openapi/mock-control.yaml, mockOrgJournal's `limit`). */
const JOURNAL_LIMIT = 1000;

/**
 * Reads an organization's own journal through `GET /__mock/org/journal` with its key (HTTP only,
 * so it works against any mock, started here or elsewhere) and records its contract.
 */
export async function recordFromJournal(
  baseUrl: string,
  key: string,
  options: Omit<RecordOptions, 'recordedFrom'>,
): Promise<{ contract: PartnerContract; entries: number }> {
  const root = baseUrl.replace(/\/+$/, '');
  let response: Response;
  try {
    response = await fetch(`${root}/__mock/org/journal?limit=${JOURNAL_LIMIT}`, {
      headers: { authorization: `Bearer ${key}` },
    });
  } catch (err) {
    throw new Error(`${root} cannot be reached: ${describeTransportError(err)}`, { cause: err });
  }
  if (response.status === 401) throw new Error(`${root} refused the organization's key (401)`);
  if (!response.ok)
    throw new Error(
      `GET ${root}/__mock/org/journal answered ${response.status}: only a mock keeps a journal to record from`,
    );
  // Newest first as the journal answers; a contract runs oldest first.
  const journal = ((await response.json()) as JournalEntry[]).reverse();
  if (journal.length >= JOURNAL_LIMIT)
    console.warn(
      `warning: the journal held ${JOURNAL_LIMIT} entries or more; only the newest ${JOURNAL_LIMIT} are recorded (reset the organization before the client's run)`,
    );
  const contract = recordContract(sharedContract(), journal, { ...options, recordedFrom: root });
  return { contract, entries: journal.length };
}
