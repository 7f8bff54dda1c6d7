/** The progress and outcome controls as use cases, without HTTP: how they resolve a scope. */
import { afterEach, describe, expect, it } from 'vitest';
import { scratchState } from '../../test-support/scratch-state.js';
import { DomainError, notFound } from '../domain/errors.js';
import type { Organization } from '../domain/organizations.js';
import type { PredictionRecord } from '../domain/predictions/prediction-record.js';
import { ProgressControls } from '../domain/predictions/progress-controls.js';
import { OutcomeControl } from './outcome-control.js';
import { ProgressControl, type ScopeLookup } from './progress-control.js';

const ORG = 'org-a';
const prediction = (id: string, status: PredictionRecord['status']): PredictionRecord => ({
  id,
  organizationId: ORG,
  imageId: 'image',
  modelId: 'model',
  status,
  createdAt: '2026-11-25T00:00:00.000Z',
  startedAt: null,
  finishedAt: null,
  segmentationId: null,
  cellCount: null,
  error: null,
  runAttempts: 0,
});
const predictions = new Map([
  ['running', prediction('running', 'STARTED')],
  ['done', prediction('done', 'COMPLETED')],
]);
const lookup: ScopeLookup = {
  prediction: async (id) => predictions.get(id),
  organization: async (id) => {
    if (id !== ORG) throw notFound('Organization');
    return { id } as Organization;
  },
};
const kindOf = async (run: () => Promise<unknown>) => {
  try {
    await run();
  } catch (err) {
    return err instanceof DomainError ? err.kind : 'other';
  }
  return 'none';
};
const states: Array<ReturnType<typeof scratchState>> = [];
afterEach(async () => {
  for (const state of states.splice(0)) await state.dispose();
});
/** Progress controls kept in a state store of their own. */
const controls = (delays: { startDelayMs: number; runDelayMs: number }) => {
  const state = scratchState();
  states.push(state);
  return new ProgressControls(state, delays);
};

describe('ProgressControl', () => {
  it("a named prediction decides the organization, and gets delays of its own on top of the organization's", async () => {
    const progress = controls({ startDelayMs: 1, runDelayMs: 2 });
    const control = new ProgressControl(progress, lookup);
    await control.set({ organizationId: ORG }, { runDelayMs: 50 });
    const setting = await control.set({ predictionId: 'running' }, { startDelayMs: 7 });
    expect(setting).toEqual({
      organizationId: ORG,
      predictionId: 'running',
      delays: { startDelayMs: 7, runDelayMs: 50, completeAfterPolls: undefined },
    });
    expect(await progress.delaysOf(ORG)).toEqual({
      startDelayMs: 1,
      runDelayMs: 50,
      completeAfterPolls: undefined,
    });
  });

  it('a request naming only a scope drops that scope back to the one above it', async () => {
    const progress = controls({ startDelayMs: 1, runDelayMs: 2 });
    const control = new ProgressControl(progress, lookup);
    await control.set({ organizationId: ORG }, { runDelayMs: 50 });
    expect((await control.set({ organizationId: ORG }, {})).delays).toEqual({ startDelayMs: 1, runDelayMs: 2 });
  });

  it('an unknown prediction or organization is not found, and nothing changes', async () => {
    const progress = controls({ startDelayMs: 1, runDelayMs: 2 });
    const control = new ProgressControl(progress, lookup);
    expect(await kindOf(() => control.set({ predictionId: 'nope' }, { runDelayMs: 9 }))).toBe('not_found');
    expect(await kindOf(() => control.set({ organizationId: 'org-b' }, { runDelayMs: 9 }))).toBe('not_found');
    expect(await progress.delaysOf()).toEqual({ startDelayMs: 1, runDelayMs: 2 });
  });
});

describe('OutcomeControl', () => {
  it('queues an outcome for a prediction in flight, and says so for one already finished', async () => {
    const progress = controls({ startDelayMs: 0, runDelayMs: 0 });
    const control = new OutcomeControl(progress, lookup);
    expect(await control.force({ predictionId: 'running', status: 'FAILED' })).toEqual({ queued: true });
    expect(await progress.takeOutcomeForcedOn('running')).toEqual({
      status: 'FAILED',
      error: 'Segmentation failed (forced by the control plane)',
    });
    expect(await control.force({ predictionId: 'done', status: 'COMPLETED' })).toEqual({
      queued: false,
      finished: predictions.get('done'),
    });
  });

  it('needs an organization or a prediction', async () => {
    const control = new OutcomeControl(controls({ startDelayMs: 0, runDelayMs: 0 }), lookup);
    expect(await kindOf(() => control.force({ status: 'COMPLETED' }))).toBe('invalid_input');
  });
});
