import type { MockClock } from '../domain/clock.js';
import type { ImageRecord } from '../domain/images/image-record.js';
import type { ModelRecord } from '../domain/models/model-record.js';
import type { PredictionRecord, SegmentationRecord } from '../domain/predictions/prediction-record.js';
import type { ShareRecord } from '../domain/shares/share-record.js';
import type { MockState } from '../domain/state.js';
import type { Plan } from '../domain/organizations.js';

/** The mock's state as plain JSON. Segmentation outlines stay in their own files (see RESULT_FILE). */
export interface StateSnapshot {
  version: 1;
  savedAt: string;
  clockOffsetMs: number;
  organizations: Array<{
    id: string;
    name: string;
    plan: Plan;
    apiKeys: string[];
    analysesByMonth: Record<string, number>;
  }>;
  models: ModelRecord[];
  images: ImageRecord[];
  predictions: PredictionRecord[];
  segmentations: Array<Omit<SegmentationRecord, 'result'>>;
  shares: ShareRecord[];
}

export function takeSnapshot(state: MockState, clock: MockClock): StateSnapshot {
  return {
    version: 1,
    savedAt: new Date().toISOString(),
    clockOffsetMs: clock.offsetMs(),
    organizations: [...state.organizations.values()].map((o) => ({
      id: o.id,
      name: o.name,
      plan: o.plan,
      apiKeys: o.apiKeys,
      analysesByMonth: Object.fromEntries(o.analysesByMonth),
    })),
    models: state.models.all(),
    images: [...state.images.values()].map((i) => ({ ...i, completing: false })),
    predictions: [...state.predictions.values()],
    segmentations: [...state.segmentations.values()].map(({ result: _result, ...rest }) => rest),
    shares: [...state.shares.values()],
  };
}

/** Fills an empty state from a snapshot; `loadResult` reads each segmentation's outlines back. */
export async function restoreSnapshot(
  state: MockState,
  clock: MockClock,
  snapshot: StateSnapshot,
  loadResult: (segmentationId: string) => Promise<SegmentationRecord['result']>,
): Promise<void> {
  if (snapshot.version !== 1)
    throw new Error(`state snapshot version ${String(snapshot.version)} is not supported`);
  clock.reset();
  clock.advance(snapshot.clockOffsetMs);
  for (const o of snapshot.organizations) {
    state.organizations.set(o.id, {
      ...o,
      analysesByMonth: new Map(Object.entries(o.analysesByMonth)),
      reservedSlots: 0,
    });
    for (const key of o.apiKeys) state.apiKeys.set(key, o.id);
  }
  for (const m of snapshot.models) state.models.add(m);
  for (const i of snapshot.images) state.images.set(i.id, i);
  for (const p of snapshot.predictions) state.predictions.set(p.id, p);
  for (const s of snapshot.segmentations) {
    try {
      state.segmentations.set(s.id, { ...s, result: await loadResult(s.id) });
    } catch {
      // its files are gone (deleted while the snapshot was in flight): the segmentation is gone too
    }
  }
  for (const s of snapshot.shares) {
    state.shares.set(s.id, s);
    state.shareTokens.set(s.token, s.id);
  }
}
