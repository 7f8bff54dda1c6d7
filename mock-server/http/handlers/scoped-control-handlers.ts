import type { ClockControl } from '../../control/clock-control.js';
import type { OutcomeControl, OutcomeRequest } from '../../control/outcome-control.js';
import type { ProgressControl, ProgressScope } from '../../control/progress-control.js';
import type { RequestJournal } from '../../control/request-journal.js';
import type { OperationContext, OperationHandler } from '../operation-context.js';
import { sendDetail } from '../error-responses.js';
import { parameterNumber } from '../lax-numbers.js';
import { outcomeQueued } from '../render/acknowledgements.js';
import { toClockResource, toJournalEntryResource, toProgressResource } from '../render/control.js';

export interface ScopedControlUseCases {
  clock: Pick<ClockControl, 'read' | 'change'>;
  progress: Pick<ProgressControl, 'set'>;
  outcomes: Pick<OutcomeControl, 'force'>;
  journal: Pick<RequestJournal, 'query'>;
}

type Body = Record<string, unknown>;
/** Whose clock, progress, outcome or journal a request is about, from its context. */
type ScopeOf<T> = (ctx: OperationContext) => T;
/** An integer query parameter as the validation read it (pydantic's rules, lax-numbers.ts). */
const optionalNumber = (value: unknown) => parameterNumber('integer', value);

/**
 * The control operations the operator reaches for any organization (`/__mock/...`) and an
 * organization reaches for its own (`/__mock/org/...`, scoped by its key): one reading of each
 * request and one answer, the scope given by each route.
 */
export function scopedControlHandlers({ clock, progress, outcomes, journal }: ScopedControlUseCases) {
  return {
    readClock: (orgOf: ScopeOf<string | undefined>): OperationHandler =>
      async function readClock(ctx) {
        ctx.res.json(toClockResource(await clock.read(orgOf(ctx))));
      },

    setClock: (orgOf: ScopeOf<string | undefined>): OperationHandler =>
      async function setClock(ctx) {
        const input = ctx.body as { advance_ms?: number; now?: string; reset?: boolean };
        const change = { advanceMs: input.advance_ms, now: input.now, reset: input.reset };
        ctx.res.json(toClockResource(await clock.change(change, orgOf(ctx))));
      },

    setProgress: (scopeOf: ScopeOf<Omit<ProgressScope, 'predictionId'>>): OperationHandler =>
      async function setProgress(ctx) {
        const input = ctx.body as Body;
        const setting = await progress.set(
          { ...scopeOf(ctx), predictionId: input.prediction_id as string | undefined },
          {
            startDelayMs: input.start_delay_ms as number | undefined,
            runDelayMs: input.run_delay_ms as number | undefined,
            completeAfterPolls: input.complete_after_polls as number | undefined,
          },
        );
        ctx.res.json(toProgressResource(setting));
      },

    forceOutcome: (scopeOf: ScopeOf<Pick<OutcomeRequest, 'organizationId' | 'ownerId'>>): OperationHandler =>
      async function forceOutcome(ctx) {
        const input = ctx.body as Body;
        const result = await outcomes.force({
          ...scopeOf(ctx),
          predictionId: input.prediction_id as string | undefined,
          status: input.status as OutcomeRequest['status'],
          error: input.error as string | undefined,
        });
        if (result.queued) return void ctx.res.json(outcomeQueued());
        const { id, status } = result.finished;
        const detail = `Prediction ${id} has already finished (${status}); only a SUBMITTED or STARTED prediction can be given an outcome`;
        sendDetail(ctx.res, 409, detail);
      },

    readJournal: (orgOf: ScopeOf<string | undefined>): OperationHandler =>
      async function readJournal(ctx) {
        const entries = await journal.query({
          operationId: ctx.query.operation_id as string | undefined,
          status: optionalNumber(ctx.query.status),
          organizationId: orgOf(ctx),
          limit: optionalNumber(ctx.query.limit),
        });
        ctx.res.json(entries.map(toJournalEntryResource));
      },
  };
}
