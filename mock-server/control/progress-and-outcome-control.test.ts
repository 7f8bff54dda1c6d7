/** The progress and outcome controls as use cases, without HTTP: how they resolve a scope. */
import { describe, expect, it } from 'vitest';
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
  prediction: (id) => predictions.get(id),
  organization: (id) => {
    if (id !== ORG) throw notFound('Organization');
    return { id } as Organization;
  },
};
const kindOf = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    return err instanceof DomainError ? err.kind : 'other';
  }
  return 'none';
};

describe('ProgressControl', () => {
  it("a named prediction decides the organization, and gets delays of its own on top of the organization's", () => {
    const progress = new ProgressControls({ startDelayMs: 1, runDelayMs: 2 });
    const control = new ProgressControl(progress, lookup);
    control.set({ organizationId: ORG }, { runDelayMs: 50 });
    const setting = control.set({ predictionId: 'running' }, { startDelayMs: 7 });
    expect(setting).toEqual({
      organizationId: ORG,
      predictionId: 'running',
      delays: { startDelayMs: 7, runDelayMs: 50, completeAfterPolls: undefined },
    });
    expect(progress.delaysOf(ORG)).toEqual({
      startDelayMs: 1,
      runDelayMs: 50,
      completeAfterPolls: undefined,
    });
  });

  it('a request naming only a scope drops that scope back to the one above it', () => {
    const progress = new ProgressControls({ startDelayMs: 1, runDelayMs: 2 });
    const control = new ProgressControl(progress, lookup);
    control.set({ organizationId: ORG }, { runDelayMs: 50 });
    expect(control.set({ organizationId: ORG }, {}).delays).toEqual({ startDelayMs: 1, runDelayMs: 2 });
  });

  it('an unknown prediction or organization is not found, and nothing changes', () => {
    const progress = new ProgressControls({ startDelayMs: 1, runDelayMs: 2 });
    const control = new ProgressControl(progress, lookup);
    expect(kindOf(() => control.set({ predictionId: 'nope' }, { runDelayMs: 9 }))).toBe('not_found');
    expect(kindOf(() => control.set({ organizationId: 'org-b' }, { runDelayMs: 9 }))).toBe('not_found');
    expect(progress.delaysOf()).toEqual({ startDelayMs: 1, runDelayMs: 2 });
  });
});

describe('OutcomeControl', () => {
  it('queues an outcome for a prediction in flight, and says so for one already finished', () => {
    const progress = new ProgressControls({ startDelayMs: 0, runDelayMs: 0 });
    const control = new OutcomeControl(progress, lookup);
    expect(control.force({ predictionId: 'running', status: 'FAILED' })).toEqual({ queued: true });
    expect(progress.takeOutcomeForcedOn('running')).toEqual({
      status: 'FAILED',
      error: 'Segmentation failed (forced by the control plane)',
    });
    expect(control.force({ predictionId: 'done', status: 'COMPLETED' })).toEqual({
      queued: false,
      finished: predictions.get('done'),
    });
  });

  it('needs an organization or a prediction', () => {
    const control = new OutcomeControl(new ProgressControls({ startDelayMs: 0, runDelayMs: 0 }), lookup);
    expect(kindOf(() => control.force({ status: 'COMPLETED' }))).toBe('invalid_input');
  });
});
