/**
 * The rows of the state's small tables (the clocks' offsets, the seed's time, plan bounds, poll
 * holds, prediction delays, forced outcomes) as a snapshot carries them: version 1's `settings`
 * rows, a key naming the table and its subject, the value as text (JSON where structured). The
 * snapshot format keeps that shape, so the snapshots written before these tables had their own
 * load as they always did, and a mock that reads version 1 reads the snapshots written now.
 */
import { LATEST } from '../clock.js';
import type { PlanBounds } from '../organization-record.js';
import type { Delays, ForcedOutcome, PollHold } from '../predictions/progress-record.js';
import type { StateStore } from '../state.js';
import { HELD_OUTCOME, isCount, isWholeUpTo, rowsEntryName, SnapshotRefused } from './snapshot-format.js';

export interface SettingRow {
  key: string;
  value: string;
}

/** A row of one organization or one of its predictions names it (`subject`); the mock's own rows name none. */
interface Carried extends SettingRow {
  subject?: string;
}

/** What each key prefix holds, and how a loaded value is written back. */
const LOADERS: Array<{
  prefix: string;
  load: (state: StateStore, subject: string, value: string) => Promise<void>;
}> = [
  { prefix: 'clock_offset_ms:', load: (s, org, v) => s.clockOffsets.set(org, finite(v)) },
  { prefix: 'self_service_plan:', load: (s, org, v) => s.planBounds.set(org, planBounds(v)) },
  { prefix: HELD_OUTCOME, load: (s, id, v) => s.pollHolds.put(id, parsed<PollHold>(v)) },
  {
    prefix: 'progress/organization/',
    load: (s, org, v) => s.progressDelays.set('organization', org, delays(v)),
  },
  {
    prefix: 'progress/prediction/',
    load: (s, id, v) => s.progressDelays.set('prediction', id, delays(v)),
  },
  {
    prefix: 'progress/forced-next/',
    load: (s, org, v) => s.forcedOutcomes.set('organization', org, outcomes(v)),
  },
  {
    prefix: 'progress/forced-on/',
    load: (s, id, v) => s.forcedOutcomes.set('prediction', id, [forcedOutcome(parsed(v))]),
  },
];

/** Every row (a whole mock's snapshot), or with `owned` only the rows of the subjects it owns (an organization's). */
export async function readSettingRows(
  state: StateStore,
  owned: ((subject: string) => boolean) | undefined,
): Promise<SettingRow[]> {
  const carried: Carried[] = [];
  for (const { organizationId, offsetMs } of await state.clockOffsets.all())
    carried.push(
      organizationId === ''
        ? { key: 'clock_offset_ms', value: String(offsetMs) }
        : { key: `clock_offset_ms:${organizationId}`, value: String(offsetMs), subject: organizationId },
    );
  const seededAt = await state.seed.seededAt();
  if (seededAt !== undefined) carried.push({ key: 'seeded_at', value: seededAt });
  for (const { organizationId, bounds } of await state.planBounds.all())
    carried.push(subjectRow(`self_service_plan:`, organizationId, bounds));
  for (const { predictionId, needed, outcome } of await state.pollHolds.all())
    carried.push(subjectRow(HELD_OUTCOME, predictionId, { needed, outcome }));
  for (const { scope, subjectId, delays } of await state.progressDelays.all())
    carried.push(
      scope === 'defaults'
        ? { key: 'progress/defaults', value: JSON.stringify(delays) }
        : subjectRow(`progress/${scope}/`, subjectId, delays),
    );
  for (const { scope, subjectId, outcomes } of await state.forcedOutcomes.all())
    carried.push(
      scope === 'organization'
        ? subjectRow('progress/forced-next/', subjectId, outcomes)
        : subjectRow('progress/forced-on/', subjectId, outcomes[0]),
    );
  return carried
    .filter(({ subject }) => owned === undefined || (subject !== undefined && owned(subject)))
    .map(({ key, value }) => ({ key, value }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * Writes each row into its table. Keys no table keeps are passed over: the marks a request held
 * (`slot/`, `completing/`) mean nothing in another mock, and older snapshots never carried them.
 */
export async function writeSettingRows(state: StateStore, rows: SettingRow[]): Promise<void> {
  for (const { key, value } of rows) {
    try {
      if (key === 'clock_offset_ms') await state.clockOffsets.set('', mockClockOffset(value));
      else if (key === 'seeded_at') await state.seed.markSeeded(value);
      else if (key === 'progress/defaults') await state.progressDelays.set('defaults', '', delays(value));
      else {
        const loader = LOADERS.find(({ prefix }) => key.startsWith(prefix));
        if (loader) await loader.load(state, key.slice(loader.prefix.length), value);
      }
    } catch (error) {
      if (!(error instanceof SyntaxError || error instanceof RangeError)) throw error;
      throw new SnapshotRefused(
        `${rowsEntryName('settings')}: the value of "${key}" cannot be read (${error.message})`,
      );
    }
  }
}

const subjectRow = (prefix: string, subject: string, value: unknown): Carried => ({
  key: `${prefix}${subject}`,
  value: JSON.stringify(value),
  subject,
});

// The control plane's ranges (PUT /__mock/predictions/progress): a run waits on these, so one that
// is not a number (or a queue that is not a list) would leave its prediction in flight for good.
const MAX_DELAY_MS = 86_400_000;
const MAX_POLLS = 1_000_000;

function delays(text: string): Delays {
  const value = parsed<Partial<Record<keyof Delays, unknown>>>(text);
  if (
    !isWholeUpTo(value.startDelayMs, MAX_DELAY_MS) ||
    !isWholeUpTo(value.runDelayMs, MAX_DELAY_MS) ||
    (value.completeAfterPolls !== undefined && !isWholeUpTo(value.completeAfterPolls, MAX_POLLS))
  )
    throw new RangeError(
      `startDelayMs and runDelayMs must be whole numbers from 0 to ${MAX_DELAY_MS}, completeAfterPolls (if any) from 0 to ${MAX_POLLS}`,
    );
  return value as Delays;
}

function outcomes(text: string): ForcedOutcome[] {
  const value = parsed<unknown>(text);
  if (!Array.isArray(value)) throw new RangeError('forced outcomes must be a list');
  return value.map(forcedOutcome);
}

function forcedOutcome(value: unknown): ForcedOutcome {
  const { status, error } = (value ?? {}) as Record<string, unknown>;
  if (status === 'COMPLETED' || (status === 'FAILED' && typeof error === 'string'))
    return value as ForcedOutcome;
  throw new RangeError(
    'a forced outcome must be {"status":"COMPLETED"} or {"status":"FAILED","error":"..."}',
  );
}

function planBounds(text: string): PlanBounds {
  const value = parsed<Partial<Record<keyof PlanBounds, unknown>>>(text);
  if (!isCount(value.storageCapImages) || !isCount(value.monthlyAnalysisCap))
    throw new RangeError(
      'storageCapImages and monthlyAnalysisCap must be whole numbers from 0 to 2147483647',
    );
  return value as PlanBounds;
}

function parsed<T>(text: string): T {
  const value = JSON.parse(text) as unknown;
  if (value === null || typeof value !== 'object') throw new SyntaxError('not a JSON object or list');
  return value as T;
}

/**
 * The mock's own offset: an organization's clock is held to the dates a date-time can render
 * (MockClock.now), the mock's is not, so an offset past them would fail every request that reads it.
 */
function mockClockOffset(text: string): number {
  const offset = finite(text);
  const time = Date.now() + offset;
  if (time < 0 || time > LATEST)
    throw new RangeError(`an offset of ${text} ms puts the mock's clock outside 1970 to 9999`);
  return offset;
}

function finite(text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value)) throw new RangeError('not a number');
  return value;
}
