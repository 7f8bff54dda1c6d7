/** The progress and outcome controls as use cases, without HTTP: how they resolve a scope. */
import { afterEach, describe, expect, it } from 'vitest';
import { scratchState } from '../../test-support/scratch-state.js';
import { DomainError, notFound } from '../domain/errors.js';
import type { Organization } from '../domain/organizations.js';
import type { PredictionRecord } from '../domain/predictions/prediction-record.js';
import { MAX_QUEUED_OUTCOMES, ProgressControls } from '../domain/predictions/progress-controls.js';
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
    expect((await control.set({ organizationId: ORG }, {})).delays).toEqual({
      startDelayMs: 1,
      runDelayMs: 2,
    });
  });

  it('an unknown prediction or organization is not found, and nothing changes', async () => {
    const progress = controls({ startDelayMs: 1, runDelayMs: 2 });
    const control = new ProgressControl(progress, lookup);
    expect(await kindOf(() => control.set({ predictionId: 'nope' }, { runDelayMs: 9 }))).toBe('not_found');
    expect(await kindOf(() => control.set({ organizationId: 'org-b' }, { runDelayMs: 9 }))).toBe('not_found');
    expect(await progress.delaysOf()).toEqual({ startDelayMs: 1, runDelayMs: 2 });
  });
});

describe('ProgressControls.planFor', () => {
  it("reads a run's plan once: the prediction's own delays over its organization's, and the organization's next outcome, taken", async () => {
    const progress = controls({ startDelayMs: 1, runDelayMs: 2 });
    await progress.setDelays('organization', ORG, { startDelayMs: 3, runDelayMs: 4, completeAfterPolls: 5 });
    await progress.setDelays('prediction', 'running', { startDelayMs: 6, runDelayMs: 7 });
    await progress.forceNextOutcome(ORG, { status: 'FAILED', error: 'first' });
    expect(await progress.planFor(predictions.get('running')!)).toEqual({
      startDelayMs: 6,
      runDelayMs: 7,
      forced: { status: 'FAILED', error: 'first' },
    });
    expect(await progress.planFor(predictions.get('done')!)).toEqual({
      startDelayMs: 3,
      runDelayMs: 4,
      completeAfterPolls: 5,
      forced: undefined,
    });
  });
});

/** A failer that records what it was asked to fail, and finds `finished` no longer in flight. */
const failer = (finished: string[] = []) => {
  const failed: Array<[string, string]> = [];
  return {
    failed,
    failNow: async (id: string, error: string) => {
      if (finished.includes(id)) return false;
      failed.push([id, error]);
      return true;
    },
  };
};

describe('OutcomeControl', () => {
  it('fails a named prediction in flight at once, and says so for one already finished', async () => {
    const predictionFailer = failer();
    const control = new OutcomeControl(
      controls({ startDelayMs: 0, runDelayMs: 0 }),
      lookup,
      predictionFailer,
    );
    expect(await control.force({ predictionId: 'running', status: 'FAILED' })).toEqual({ queued: true });
    expect(predictionFailer.failed).toEqual([
      ['running', 'Segmentation failed (forced by the control plane)'],
    ]);
    expect(await control.force({ predictionId: 'running', status: 'COMPLETED' })).toEqual({ queued: true });
    expect(await control.force({ predictionId: 'done', status: 'COMPLETED' })).toEqual({
      queued: false,
      finished: predictions.get('done'),
    });
    expect(predictionFailer.failed).toHaveLength(1);
  });

  it('says so for a prediction that finished between the look-up and the failure', async () => {
    const control = new OutcomeControl(
      controls({ startDelayMs: 0, runDelayMs: 0 }),
      lookup,
      failer(['running']),
    );
    expect(await control.force({ predictionId: 'running', status: 'FAILED' })).toEqual({
      queued: false,
      finished: predictions.get('running'),
    });
  });

  it("holds at most MAX_QUEUED_OUTCOMES of an organization's next outcomes; one taken makes room for one more", async () => {
    const progress = controls({ startDelayMs: 0, runDelayMs: 0 });
    const control = new OutcomeControl(progress, lookup, failer());
    for (let i = 0; i < MAX_QUEUED_OUTCOMES; i++)
      await control.force({ organizationId: ORG, status: 'FAILED', error: `e${i}` });
    const oneMore = () => control.force({ organizationId: ORG, status: 'FAILED', error: 'past' });
    expect(await kindOf(oneMore)).toBe('invalid_state');
    expect((await progress.planFor(prediction('next', 'SUBMITTED'))).forced).toEqual({
      status: 'FAILED',
      error: 'e0',
    });
    expect(await oneMore()).toEqual({ queued: true });
    expect(await kindOf(oneMore)).toBe('invalid_state');
  });

  it('needs an organization or a prediction', async () => {
    const control = new OutcomeControl(controls({ startDelayMs: 0, runDelayMs: 0 }), lookup, failer());
    expect(await kindOf(() => control.force({ status: 'COMPLETED' }))).toBe('invalid_input');
  });
});
