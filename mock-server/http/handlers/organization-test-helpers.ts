import type { ClockControl } from '../../control/clock-control.js';
import type { OutcomeControl, OutcomeRequest } from '../../control/outcome-control.js';
import type { ProgressControl } from '../../control/progress-control.js';
import type { ReadinessControl } from '../../control/readiness/readiness-control.js';
import type { RequestJournal } from '../../control/request-journal.js';
import type { ResetControl } from '../../control/reset-control.js';
import type { OperationHandler } from '../operation-context.js';
import { answerOutcome } from './outcome-answer.js';
import { resetDone } from '../render/acknowledgements.js';
import { toClockResource, toJournalEntryResource, toProgressResource } from '../render/control.js';
import { toReadinessResource } from '../render/readiness.js';

export interface OrganizationTestHelperUseCases {
  resets: Pick<ResetControl, 'resetOrganization'>;
  clock: Pick<ClockControl, 'read' | 'change'>;
  progress: Pick<ProgressControl, 'set'>;
  outcomes: Pick<OutcomeControl, 'force'>;
  journal: Pick<RequestJournal, 'query'>;
  readiness: Pick<ReadinessControl, 'exposure'>;
}

type Body = Record<string, unknown>;
const optionalNumber = (value: unknown) => (value === undefined ? undefined : Number(value));

/**
 * The test helpers an organization reaches with its own API key (`/__mock/org/...`): the control
 * plane's use cases, each scoped to the caller's organization (`org`, from the key). A prediction
 * of another organization is not found; nothing here names an organization in its request.
 */
export function organizationTestHelpers(
  useCases: OrganizationTestHelperUseCases,
): Record<string, OperationHandler> {
  const { resets, clock, progress, outcomes, journal, readiness } = useCases;
  return {
    async mockOrgForceOutcome({ res, body, org }) {
      const input = body as Body;
      const result = await outcomes.force({
        organizationId: org.id,
        ownerId: org.id,
        predictionId: input.prediction_id as string | undefined,
        status: input.status as OutcomeRequest['status'],
        error: input.error as string | undefined,
      });
      answerOutcome(res, result);
    },

    async mockOrgSetProgress({ res, body, org }) {
      const input = body as Body;
      const setting = await progress.set(
        { ownerId: org.id, predictionId: input.prediction_id as string | undefined },
        {
          startDelayMs: input.start_delay_ms as number | undefined,
          runDelayMs: input.run_delay_ms as number | undefined,
          completeAfterPolls: input.complete_after_polls as number | undefined,
        },
      );
      res.json(toProgressResource(setting));
    },

    async mockOrgGetClock({ res, org }) {
      res.json(toClockResource(await clock.read(org.id)));
    },

    async mockOrgSetClock({ res, body, org }) {
      const input = body as { advance_ms?: number; now?: string; reset?: boolean };
      const change = { advanceMs: input.advance_ms, now: input.now, reset: input.reset };
      res.json(toClockResource(await clock.change(change, org.id)));
    },

    async mockOrgReset({ res, org }) {
      await resets.resetOrganization(org.id);
      res.json(resetDone(org.id));
    },

    async mockOrgJournal({ res, query, org }) {
      const entries = await journal.query({
        operationId: query.operation_id as string | undefined,
        status: optionalNumber(query.status),
        organizationId: org.id,
        limit: optionalNumber(query.limit),
      });
      res.json(entries.map(toJournalEntryResource));
    },

    async mockOrgReadiness({ res, org }) {
      res.json(toReadinessResource(org.id, await readiness.exposure(org.id)));
    },
  };
}
