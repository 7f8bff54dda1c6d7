import { MockClock } from '../domain/clock.js';
import type { StateStore } from '../domain/state.js';

/** The mock's clock, its offsets kept in the state: the mock's own under the empty organization id. */
export async function stateClock(state: StateStore): Promise<MockClock> {
  const clock = new MockClock({
    load: (orgId) => state.clockOffsets.get(orgId ?? ''),
    save: (offset, orgId) => state.clockOffsets.set(orgId ?? '', offset),
  });
  await clock.refresh();
  return clock;
}
